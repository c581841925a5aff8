"""benchmarks/bench_adbench.py on two small ADBench sets: ADBench's protocol (split, scaling),
every peer in the same run, and the table it writes into docs/anomaly.md's section."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from benchmarks import bench_adbench
from benchmarks._docs_tables import write_section

pytest.importorskip("pyod")

SHARED_ADBENCH = Path(__file__).resolve().parents[2] / "shared" / "data" / "adbench"
SMALL_SETS = ["15_Hepatitis", "45_wine"]  # 80 and 129 rows


@pytest.fixture(scope="module")
def adbench_dir(tmp_path_factory) -> Path:
    env = os.environ.get(bench_adbench.DATA_ENV)
    path = Path(env) if env else SHARED_ADBENCH
    if not all((path / f"{name}.npz").exists() for name in SMALL_SETS):
        pytest.skip(f"ADBench sets not found in {path}: set {bench_adbench.DATA_ENV}")
    return path


def test_split_follows_adbench_protocol(adbench_dir: Path) -> None:
    path = adbench_dir / "45_wine.npz"
    data = np.load(path)
    X_train, X_test, y_train, y_test = bench_adbench.split(path, seed=0)
    assert len(X_train) + len(X_test) == len(data["X"])
    assert len(X_test) == pytest.approx(0.3 * len(data["X"]), abs=1)
    # stratified: each side keeps the anomalies' share, to one row
    assert abs(y_test.sum() - 0.3 * data["y"].sum()) <= 1
    both = np.vstack([X_train, X_test])
    assert both.min() == 0.0 and both.max() == 1.0  # min-max scaled over all the rows
    again = bench_adbench.split(path, seed=0)
    np.testing.assert_array_equal(again[1], X_test)  # the seed fixes the split


def test_benchmark_runs_every_peer_on_two_sets(adbench_dir: Path, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv(bench_adbench.DATA_ENV, str(adbench_dir))
    results = bench_adbench.main(["--sets", *SMALL_SETS, "--seeds", "0"])
    names = set(bench_adbench.detectors())
    assert set(results["detector"]) == names
    assert set(results["set"]) == set(SMALL_SETS)
    assert results["auc_roc"].between(0, 1).all()
    assert results["average_precision"].between(0, 1).all()
    table = bench_adbench.summary(results)
    assert table.loc[bench_adbench.REFERENCE, "time / IsolationForest"] == pytest.approx(1.0)
    # ranks over two sets: the mean rank of all detectors is (k + 1) / 2
    assert table["average rank"].mean() == pytest.approx((len(names) + 1) / 2)
    page = tmp_path / "anomaly.md"
    page.write_text("# A\n<!-- begin: adbench -->\n<!-- end: adbench -->\nafter\n", "utf-8")
    bench_adbench.write_docs(results, page)
    text = page.read_text(encoding="utf-8")
    assert "momkde_default" in text and "45_wine" in text and text.endswith("after\n")
    assert "time / IsolationForest" in text


def test_the_docs_page_has_the_section(tmp_path) -> None:
    text = bench_adbench.DOCS.read_text(encoding="utf-8")
    assert text.count(f"<!-- begin: {bench_adbench.SECTION} -->") == 1
    page = tmp_path / "a.md"
    page.write_text(text, encoding="utf-8")
    write_section(bench_adbench.SECTION, "new", page)  # no ValueError: the markers are there


def test_missing_data_dir_is_a_clear_message(monkeypatch) -> None:
    monkeypatch.delenv(bench_adbench.DATA_ENV, raising=False)
    with pytest.raises(SystemExit, match=bench_adbench.DATA_ENV):
        bench_adbench.data_dir()


def test_the_stored_rules_run_gives_the_documented_selection() -> None:
    """The preregistered rule, applied to the stored run of the candidates
    (docs/results/adbench_rules.csv.gz), picks the default docs/anomaly.md reports, on every
    set and on each half alone."""
    import pandas as pd

    bench_adbench.detectors(with_rules=True)  # puts benchmarks/ on sys.path for the rules
    stored = bench_adbench.ROOT / "docs" / "results" / "adbench_rules.csv.gz"
    lines = bench_adbench.selection(pd.read_csv(stored)).splitlines()
    assert lines[0] == "winner on every set: rule_mom_s21_scott"
    assert all(
        line.startswith(f"picked on half {h}: rule_mom_s21_scott;")
        for h, line in zip("AB", lines[1:])
    )


def test_the_stored_round_two_run_gives_the_documented_selection() -> None:
    """Issue #47's preregistered rule (adbench_rules.py, "Round two"), applied to the stored
    run (docs/results/adbench_round_two.csv.gz), picks the default docs/anomaly.md reports,
    and each candidate's firsts count the measures on which it beats every peer."""
    import pandas as pd

    bench_adbench.detectors(with_round_two=True)  # puts benchmarks/ on sys.path
    from adbench_rules import PEERS, select_round_two

    stored = pd.read_csv(bench_adbench.ROOT / "docs" / "results" / "adbench_round_two.csv.gz")
    winner, table = select_round_two(bench_adbench.summary, stored)
    assert winner == "rule_r2_mean_log"
    peers = bench_adbench.summary(stored[stored["detector"].isin(PEERS)])
    assert table.loc[winner, "mean AUC-ROC"] > peers["mean AUC-ROC"].max()
    assert table.loc[winner, "mean AP"] < peers["mean AP"].max()  # HBOS's: not first on AP
    assert table.loc[winner, "firsts"] == table["firsts"].max()


def test_paired_bootstrap_brackets_the_difference_over_sets() -> None:
    """On a made-up table of 4 sets: the difference is the mean of the per-set
    differences, its resampled interval holds it, and the count of sets is the count."""
    import pandas as pd

    rows = [
        {"set": s, "seed": 0, "detector": d, "auc_roc": v, "average_precision": v / 2}
        for s, (a, b) in enumerate([(0.9, 0.8), (0.7, 0.75), (0.6, 0.5), (0.8, 0.7)])
        for d, v in (("ours", a), ("peer", b))
    ]
    table = bench_adbench.paired_bootstrap(pd.DataFrame(rows), "ours", "peer", 2000, seed=1)
    # (0.1 - 0.05 + 0.1 + 0.1) / 4, up to float round-off
    assert table.loc["auc_roc", "difference"] == pytest.approx(0.0625, abs=1e-12)
    assert table.loc["average_precision", "difference"] == pytest.approx(0.03125, abs=1e-12)
    assert table.loc["auc_roc", "low (2.5 %)"] <= 0.0625 <= table.loc["auc_roc", "high (97.5 %)"]
    assert table.loc["auc_roc", "low (2.5 %)"] >= -0.05  # no resample below the worst set
    assert table.loc["auc_roc", "sets higher"] == 3
