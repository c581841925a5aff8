"""Wall time of the full synthetic reproduction: 4 schemes x 10 ratios x 10 repetitions, all
methods (kde, mom_kde, mom_kde_oracle, rkde, spkde and the two block-aware MoM-KDE), 1-D.

    python benchmarks/bench_reproduction.py [--jobs 2] [--protocol honest] [--reps 10]
                                            [--out results.csv] [--profile]

Prints the total wall time and the time per sample (the cost of a sample grows with its
ratio: more outliers, a longer S grid, smaller CV bandwidths).
``--profile`` instead runs one repetition of every scheme at ratios 0.1, 0.3 and 0.5 in this
process under cProfile and prints the functions that dominate.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import momkde_core.experiments as ex  # noqa: E402
from momkde_core.io import write_csv  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--protocol", choices=ex.PROTOCOLS, default="honest")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--out", type=Path, default=None, help="also save the results table")
    parser.add_argument(
        "--methods", nargs="+", choices=ex.ALL_METHODS, default=list(ex.ALL_METHODS)
    )
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    if args.profile:
        tasks = ex.make_tasks(
            "synthetic",
            ratios=[0.1, 0.3, 0.5],
            reps=1,
            protocol=args.protocol,
            methods=args.methods,
        )
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [ex.run_task(t) for t in tasks])
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)
        return

    tasks = ex.make_tasks("synthetic", reps=args.reps, protocol=args.protocol, methods=args.methods)
    print(
        f"{len(tasks)} samples, methods {' '.join(args.methods)}, protocol {args.protocol}, "
        f"{args.jobs} jobs on "
        f"{os.cpu_count()} cores",
        flush=True,
    )
    start = time.perf_counter()
    df = ex.run_experiments(tasks, n_jobs=args.jobs, progress=True)
    total = time.perf_counter() - start
    print(f"total wall time: {total:.1f} s ({total / len(tasks):.2f} s per sample)")
    if args.out is not None:
        write_csv(df, args.out)
        print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
