"""Tests of the estimators (:mod:`momkde_core.estimators`)."""
