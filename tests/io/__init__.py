"""Tests of the reading of users' files (:mod:`momkde_core.io`)."""
