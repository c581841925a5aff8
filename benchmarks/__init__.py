"""Speed benchmarks, the app's load test and their shared browser helpers (:mod:`benchmarks.browser`).

A regular package, so that with the repository root first on ``sys.path`` no other installed
``benchmarks`` package can shadow it."""
