"""Tests of the engine (:mod:`momkde_core._engine`): its sums, grids and binnings against direct computations."""
