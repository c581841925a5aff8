"""Tests of the bandwidth rules (:mod:`momkde_core.bandwidth`)."""
