"""How far a running or stopped sweep got, and the table of its complete repetitions.

    PYTHONPATH=. python benchmarks/partial_sweep.py results.csv --reps 50 [--first-rep 0]
        [--seed 0] [--ratios R ...] [--out partial.csv.gz]

``results.csv`` is the ``--out`` of ``momkde reproduce`` (its ``results.csv.partial`` and
``.partial.json`` are read, never changed: the sweep may still be running). The sweep's
settings come from the JSON; its sources are the kind's defaults (all of them); ``--reps``,
``--first-rep``, ``--seed`` and ``--ratios`` (default all ten) must be those of the command. A sweep computes repetition by
repetition, so what it finished is (nearly) whole repetitions of every source and ratio:
``--out`` gets the rows of the repetitions finished for every source and ratio, in the
order of the final table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import momkde_core.experiments as ex
from momkde_core.io import write_csv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="the --out of the sweep")
    parser.add_argument("--reps", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first-rep", type=int, default=0)
    parser.add_argument("--ratios", type=float, nargs="+", default=list(ex.RATIOS))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    sweep_file = args.results.with_name(args.results.name + ex.SweepFile.SUFFIX)
    settings = json.loads(Path(str(sweep_file) + ".json").read_text(encoding="utf-8"))
    tasks = ex.make_tasks(
        settings["kind"],
        ratios=args.ratios,
        reps=args.reps,
        seed=args.seed,
        first_rep=args.first_rep,
        protocol=settings["protocol"],
        methods=settings["methods"],
        dim=settings["dim"],
        n_inliers=settings["n_inliers"],
        scale=settings["scale"],
        contamination=settings["contamination"],
    )
    sweep = ex.SweepFile(args.results, tasks)
    if sweep.settings != settings:
        raise SystemExit(f"{sweep_file.name}: settings not understood: {settings}")
    done = sweep.finished()
    cells = {(t.source, t.ratio) for t in tasks}
    per_rep = done.drop_duplicates(["source", "ratio", "rep"]).groupby("rep").size()
    whole = sorted(int(r) for r, n in per_rep.items() if n == len(cells))
    print(
        f"{done['seed'].nunique()} of {len(tasks)} samples finished; repetitions finished "
        f"for all {len(cells)} cells: {len(whole)} ({', '.join(map(str, whole)) or 'none'})"
    )
    print(
        "samples finished per source: "
        + ", ".join(
            f"{s} {n}"
            for s, n in done.drop_duplicates("seed").groupby("source", sort=False).size().items()
        )
    )
    if args.out is not None:
        write_csv(done[done["rep"].isin(whole)], args.out)
        print(f"wrote the {len(whole)} whole repetitions to {args.out}")


if __name__ == "__main__":
    main()
