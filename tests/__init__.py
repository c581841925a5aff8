"""The tests of momkde: a regular package, so that an installed top-level ``tests`` package
(some distributions ship one) cannot stand in for it when a test imports its helpers."""
