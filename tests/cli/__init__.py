"""Tests of the ``momkde`` command (:mod:`momkde_core.cli`)."""
