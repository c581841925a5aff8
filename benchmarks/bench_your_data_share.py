"""How long Your data takes to rerun after a move of the share ε, on its opening sample.

Run from anywhere: ``python benchmarks/bench_your_data_share.py [--moves 5] [--repo PATH]
[--label NAME] [--json FILE] [--write-docs BEFORE.json AFTER.json]``.

Runs the app of ``--repo`` (default: this repository; another checkout, e.g. an older
commit unpacked with ``git archive``, measures that code with this benchmark) in Streamlit's
AppTest, the server's script run without a browser, with the warm-up of Explore's views off
(``MOMKDE_APP_WARM=0``: it would compete for the same cores). It opens Your data on its
bundled sample (``sensor_glitches.csv``, 960 rows, 3 columns scored, the default detector and
the paper's four methods), then moves ε one step of the slider at a time (0.10 -> 0.11 -> ...,
each share new to the caches, as a user's drag) and times each rerun, for two rules of h:

- **robust h** (the default): the robust h is chosen for ε, so every method fitted with the
  page's h refits; the default detector keeps its own S and h;
- **CV h** (``hmode=CV``): h does not depend on ε; MoM-KDE (S auto) and SPKDE (told ε) refit;
- **a file of 20,000 rows** (three Gaussian columns, uploaded), CV h: every row is scored by
  each method, fitted on 2,000 of them.

A benchmark, not a test: it prints median (max) seconds per rule, wall clock and the
process's CPU time, and asserts nothing on time.
``--json`` keeps the results; ``--write-docs`` puts two such files side by side (before,
after) into docs/benchmarks.md, section ``your-data-share``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks._docs_tables import machine_line, write_section  # noqa: E402

#: The views timed: name -> URL query parameters (the URL holds a rule by its label); a
#: ``sample`` of "upload" uploads :func:`large_file`.
RULES = {
    "sample, robust h (default)": {},
    "sample, CV h": {"hmode": "CV"},
    f"{20_000:,} rows, CV h": {"hmode": "CV", "sample": "upload"},
}
SHARE_LABEL = "Expected share of outliers ε"
TIMEOUT_S = 300


def time_moves(repo: Path, params: dict[str, str], moves: int) -> dict[str, list[float]]:
    """Seconds of each of ``moves`` reruns of Your data (from ``repo``) after a step of ε:
    ``wall`` (the wait) and ``cpu`` (this process's CPU time, every thread: the work done,
    which other loads on a shared machine change less than the wait)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()  # each view from cold caches: no share met in another view
    at = AppTest.from_file(str(repo / "app.py"), default_timeout=TIMEOUT_S)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("app_pages/your_data.py").run()
    if params.get("sample") == "upload":
        upload = at.sidebar.file_uploader(key="upload")
        upload.set_value(("large.csv", large_file(), "text/csv")).run()
    if at.exception:
        raise RuntimeError([e.value for e in at.exception])
    rule = next(c.value for c in at.sidebar.get("button_group") if c.label == "Bandwidth h")
    if rule != params.get("hmode", "robust").lower():
        raise RuntimeError(f"the page runs the {rule} h, not the one asked: {params}")
    seconds: dict[str, list[float]] = {"wall": [], "cpu": []}
    for k in range(1, moves + 1):
        slider = next(s for s in at.sidebar.slider if s.label == SHARE_LABEL)
        start, cpu = time.perf_counter(), time.process_time()
        slider.set_value(round(0.1 + 0.01 * k, 2)).run()
        seconds["wall"].append(time.perf_counter() - start)
        seconds["cpu"].append(time.process_time() - cpu)
        if at.exception:
            raise RuntimeError([e.value for e in at.exception])
    return seconds


def large_file(n: int = 20_000, seed: int = 0) -> bytes:
    """A CSV of ``n`` rows, three Gaussian columns with 2 % of the rows shifted (a file whose
    rows the page scores beyond the 2,000 it fits on)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    X[: n // 50] += 5.0
    lines = ["a,b,c", *(",".join(f"{v:.4f}" for v in row) for row in X)]
    return "\n".join(lines).encode()


def summary(seconds: list[float]) -> str:
    return f"{statistics.median(seconds):.2f} ({max(seconds):.2f})"


def write_docs(before: Path, after: Path) -> None:
    """docs/benchmarks.md, section ``your-data-share``: the two runs side by side."""
    runs = [json.loads(path.read_text()) for path in (before, after)]
    before, after = (run["seconds"] for run in runs)
    lines = [
        f"Before: {runs[0]['label']}; after: {runs[1]['label']}. Median (max) seconds of "
        f"the rerun over {len(before[next(iter(RULES))]['wall'])} moves of ε (AppTest: the "
        "server's script run, no browser), wall clock and the process's CPU time, the two "
        "runs one after the other.",
        "",
        "| view | wall before | wall after | CPU before | CPU after |",
        "|---|---|---|---|---|",
        *(
            f"| {rule} | {summary(before[rule]['wall'])} | {summary(after[rule]['wall'])} "
            f"| {summary(before[rule]['cpu'])} | {summary(after[rule]['cpu'])} |"
            for rule in RULES
        ),
        "",
        machine_line(),
    ]
    write_section("your-data-share", "\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=5)
    parser.add_argument("--repo", type=Path, default=REPO)
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--write-docs", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.write_docs:
        write_docs(*args.write_docs)
        return
    repo = args.repo.resolve()
    os.environ["MOMKDE_APP_WARM"] = "0"
    os.chdir(repo)
    sys.path.insert(0, str(repo))  # the app's own app_support and momkde_core
    for name in [m for m in sys.modules if m.split(".")[0] in ("app_support", "momkde_core")]:
        del sys.modules[name]
    seconds = {rule: time_moves(repo, params, args.moves) for rule, params in RULES.items()}
    for rule, values in seconds.items():
        for kind, each in values.items():
            print(f"{rule}, {kind}: {summary(each)} s, each: {', '.join(f'{v:.2f}' for v in each)}")
    if args.json:
        args.json.write_text(json.dumps({"label": args.label, "seconds": seconds}, indent=1))


if __name__ == "__main__":
    main()
