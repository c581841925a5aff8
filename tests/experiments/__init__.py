"""Tests of the experiment runner (:mod:`momkde_core.experiments`)."""
