"""Speed benchmarks, the app's load test and their shared browser helpers (:mod:`benchmarks.browser`);
the finished design studies in ``benchmarks/studies/``. ``benchmarks/README.md`` indexes
every script: what it measures, how to run it, what it writes, and for a study the commit
whose code it measured.

A regular package, so that with the repository root first on ``sys.path`` no other installed
``benchmarks`` package can shadow it."""
