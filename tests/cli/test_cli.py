"""The ``momkde`` command: reproduce -> CSV -> figures round trip, and one-line errors (exit 2)."""

import importlib.util
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import momkde_core._progress as progress
import momkde_core.cli._score as cli
import momkde_core.experiments as ex
from momkde_core import make_contaminated, metrics
from momkde_core.cli import main
from momkde_core.cli._scan import _Reservoir
from momkde_core.experiments import _runner
from momkde_core.experiments._estimate import METRICS
from momkde_core.methods import DETECTOR_METHODS, METHODS


@pytest.fixture(scope="module")
def results_csv(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "results.csv"
    code = main(
        [
            "reproduce",
            "synthetic",
            "--reps",
            "2",
            "--ratios",
            "0.1",
            "0.2",
            "--schemes",
            "thin_gaussian",
            "--n-inliers",
            "200",
            "--seed",
            "3",
            "--methods",
            "kde",
            "mom_kde_oracle",
            "spkde",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    return out


def test_score_help_describes_every_method_from_the_registry(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "10000")  # no line wrapped (argparse breaks at hyphens)
    with pytest.raises(SystemExit) as exit_:
        main(["score", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for name in DETECTOR_METHODS:
        assert f"{name}: {METHODS[name].description}" in text
    assert "(mom_kde and screened_kde: below 0.5)" in text


def test_reproduce_writes_the_tidy_table(results_csv):
    df = pd.read_csv(results_csv)
    assert tuple(df.columns) == ex.COLUMNS
    assert set(df["method"]) == {"kde", "mom_kde_oracle", "spkde"}
    assert sorted(df["ratio"].unique()) == [0.1, 0.2]
    assert len(df) == 2 * 2 * 3 * len(METRICS)


def test_block_bandwidth_flag_adds_the_two_block_aware_methods(tmp_path):
    out = tmp_path / "blockh.csv"
    assert (
        main(
            [
                "reproduce",
                "synthetic",
                "--reps",
                "1",
                "--ratios",
                "0.2",
                "--schemes",
                "uniform",
                "--n-inliers",
                "100",
                "--methods",
                "kde",
                "--block-bandwidth",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert set(pd.read_csv(out)["method"]) == {"kde", *ex.BLOCKH_METHODS}


def test_figures_write_offline_html_per_source_and_metric(results_csv, tmp_path, capsys):
    assert main(["figures", str(results_csv), "--out", str(tmp_path / "figs")]) == 0
    files = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert files == [
        f"thin_gaussian_{m}.html" for m in sorted(("js", "kl_fhat_f", "kl_f_fhat", "auc"))
    ]
    html = (tmp_path / "figs" / "thin_gaussian_js.html").read_text()
    assert "MoM-KDE (oracle S)" in html and "SPKDE" in html and "KDE" in html
    assert "plotly.js v" in html or "Plotly" in html[:200000]  # plotly.js inlined, works offline
    assert '<script src="https://cdn.plot.ly' not in html


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["reproduce", "synthetic", "--ratios", "1.5", "--out", "x.csv"],
            "ratio must be in (0, 1)",
        ),
        (["reproduce", "synthetic", "--schemes", "bogus", "--out", "x.csv"], "invalid choice"),
        (["reproduce", "synthetic", "--reps", "0", "--out", "x.csv"], "must be >= 1"),
        (["reproduce", "synthetic"], "--out"),
        (
            ["reproduce", "synthetic", "--datasets", "iris", "--out", "x.csv"],
            "--datasets does not apply to synthetic",
        ),
        (["reproduce", "synthetic", "--out", "/no/such/dir/x.csv"], "does not exist"),
        (["figures", "/no/such/file.csv", "--out", "figs"], "cannot read"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert message in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_figures_as_static_svg_for_documents(results_csv, tmp_path):
    # skipped only when kaleido is absent; a kaleido that fails to import fails the test
    if importlib.util.find_spec("kaleido") is None:
        pytest.skip("static images need kaleido (the docs extra): pip install -e '.[docs]'")
    out = tmp_path / "svg"
    assert (
        main(
            [
                "figures",
                str(results_csv),
                "--out",
                str(out),
                "--format",
                "svg",
                "--methods",
                "kde",
                "mom_kde_oracle",
            ]
        )
        == 0
    )
    svg = (out / "thin_gaussian_js.svg").read_text()
    assert svg.lstrip().startswith("<svg") and "MoM-KDE (oracle S)" in svg
    assert "SPKDE" not in svg  # only the methods asked for


def test_figures_report_an_unknown_method_and_a_failed_render_in_one_line(
    results_csv, tmp_path, capsys, monkeypatch
):
    assert main(["figures", str(results_csv), "--out", str(tmp_path), "--methods", "nope"]) == 2
    assert "no method(s) nope" in capsys.readouterr().err

    def no_browser(*args, **kwargs):
        raise RuntimeError("Kaleido requires Google Chrome to be installed.\nmore text")

    monkeypatch.setattr("plotly.graph_objects.Figure.write_image", no_browser)
    assert main(["figures", str(results_csv), "--out", str(tmp_path), "--format", "png"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "requires Google Chrome" in err and "momkde[docs]" in err


def test_figures_reject_a_csv_that_is_not_a_results_table(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    assert main(["figures", str(bad), "--out", str(tmp_path / "f")]) == 2
    assert "missing column" in capsys.readouterr().err


def test_real_data_sets_not_installed_are_skipped_with_a_warning(tmp_path, capsys):
    out = tmp_path / "real.csv"
    code = main(
        [
            "reproduce",
            "real",
            "--datasets",
            "banana",
            "iris",
            "--data-dir",
            str(tmp_path),
            "--reps",
            "1",
            "--ratios",
            "0.1",
            "--methods",
            "kde",
            "--out",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code == 0
    assert "skipping banana" in err and "MOMKDE_DATA_DIR" in err
    assert set(pd.read_csv(out)["source"]) == {"iris"}


# --- momkde score ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A CSV of 400 rows: two numeric columns with 10 % planted outliers, an integer id,
    a text column with formulas, and the label."""
    data = make_contaminated("uniform", n_inliers=360, ratio=0.1, dim=2, random_state=0)
    df = pd.DataFrame(
        {
            "id": range(len(data.X)),
            "a": data.X[:, 0],
            "b": data.X[:, 1] * 100,
            "note": ['=HYPERLINK("http://x")' if i % 40 == 0 else "ok" for i in range(len(data.X))],
            "label": data.is_outlier.astype(int),
        }
    )
    path = tmp_path_factory.mktemp("score") / "data.csv"
    df.to_csv(path, index=False)
    return path, df


def run_score(*argv):
    try:
        return main(["score", *map(str, argv)])
    except SystemExit as exit_:  # argparse's own errors
        return exit_.code


def test_score_writes_every_row_with_its_score_and_flag(table, tmp_path, capsys):
    path, df = table
    out = tmp_path / "scored.csv"
    assert run_score(path, "--columns", "a", "b", "--contamination", "0.1", "--out", out) == 0
    scored = pd.read_csv(out)
    assert list(scored.columns) == [*df.columns, "score", "is_outlier"]
    pd.testing.assert_frame_equal(scored[["id", "a", "b", "label"]], df[["id", "a", "b", "label"]])
    assert (scored["is_outlier"] == (scored["score"] < 0)).all()
    assert abs(scored["is_outlier"].mean() - 0.1) <= 1 / len(df)  # fitted on every row here
    assert metrics.auc(scored["score"], scored["label"]) > 0.9
    err = capsys.readouterr().err
    assert "scored 400 rows on 2 column(s)" in err and "mom_kde_21 40 (10.0%)" in err


def test_score_with_several_methods(table, tmp_path):
    path, df = table
    out = tmp_path / "scored.csv"
    assert (
        run_score(
            path,
            "--columns",
            "a",
            "b",
            "--method",
            "kde",
            "mom_kde",
            "spkde",
            "--contamination",
            "0.05",
            "--out",
            out,
        )
        == 0
    )
    scored = pd.read_csv(out)
    for method in ("kde", "mom_kde", "spkde"):
        flags = scored[f"is_outlier_{method}"]
        assert (flags == (scored[f"score_{method}"] < 0)).all()
        assert abs(flags.mean() - 0.05) <= 1 / len(df)
        assert metrics.auc(scored[f"score_{method}"], scored["label"]) > 0.85
    assert "score" not in scored.columns and "is_outlier" not in scored.columns


def test_score_escapes_formulas_in_the_output(tmp_path):
    data = tmp_path / "evil.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame(
        {
            "=cmd()": ["@SUM(A1)", "-2+3", "-1.5", "fine"] * 10,
            "x": rng.normal(size=40),
            "y": rng.normal(size=40),
        }
    ).to_csv(data, index=False)
    out = tmp_path / "out.csv"
    assert run_score(data, "--method", "kde", "--out", out) == 0  # default: the numeric columns
    lines = out.read_text().splitlines()
    assert lines[0] == "'=cmd(),x,y,score,is_outlier"
    assert [line.split(",")[0] for line in lines[1:5]] == ["'@SUM(A1)", "'-2+3", "-1.5", "fine"]


def test_score_defaults_to_the_numeric_columns_and_names_mostly_numeric_text(tmp_path, capsys):
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "x": rng.normal(size=50),
            "y": rng.normal(size=50),
            "name": ["n"] * 50,
            "typo": [str(v) for v in rng.normal(size=49)] + ["12,5 kg"],
        }
    )
    df.to_csv(tmp_path / "d.csv", index=False)
    assert run_score(tmp_path / "d.csv", "--method", "kde", "--out", tmp_path / "o.csv") == 0
    err = capsys.readouterr().err
    assert "warning: column 'typo' is not numeric: data row 50 holds '12,5 kg'" in err
    assert "scored 50 rows on 2 column(s)" in err


def test_score_drop_missing_leaves_those_rows_out(tmp_path, capsys):
    rng = np.random.default_rng(2)
    x = rng.normal(size=60)
    x[[3, 10]] = np.nan
    pd.DataFrame({"x": x, "y": rng.normal(size=60)}).to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "o.csv"
    assert run_score(tmp_path / "d.csv", "--method", "kde", "--out", out) == 2
    assert (
        "2 row(s) have missing or infinite values (per column: 'x': 2); drop those rows "
        "(--drop-missing) or fill them in" in capsys.readouterr().err
    )
    assert run_score(tmp_path / "d.csv", "--method", "kde", "--drop-missing", "--out", out) == 0
    assert len(pd.read_csv(out)) == 58
    assert "(2 with missing values left out)" in capsys.readouterr().err


@pytest.mark.parametrize("fit_rows", ["1000", "150"])
def test_score_in_chunks_equals_score_in_one_chunk(tmp_path, fit_rows, capsys):
    """The output does not depend on --chunksize: the same sample and fit, every input cell
    written alike (an integer column with a gap in one chunk only is still one type), the
    same flags, and the same scores up to the last bits of the engine's sums (BLAS adds in
    an order that depends on the number of rows scored at once)."""
    rng = np.random.default_rng(3)
    n = 403
    ids = pd.array(range(n), dtype="Int64")
    ids[200] = pd.NA
    df = pd.DataFrame(
        {
            "id": ids,
            "x": rng.normal(size=n),
            "y": rng.gamma(2.0, size=n),
            "tag": rng.choice(["a", "=b", "-c"], size=n),
        }
    )
    df.to_csv(tmp_path / "d.csv", index=False)
    outputs = []
    for chunksize in ("1000000", "37", "1"):
        out = tmp_path / f"o{chunksize}.csv"
        assert (
            run_score(
                tmp_path / "d.csv",
                "--columns",
                "x",
                "y",
                "--method",
                "kde",
                "mom_kde",
                "--fit-rows",
                fit_rows,
                "--chunksize",
                chunksize,
                "--seed",
                "5",
                "--out",
                out,
            )
            == 0
        )
        outputs.append(pd.read_csv(out, dtype=str, keep_default_na=False))
    scores = ["score_kde", "score_mom_kde"]
    for other in outputs[1:]:
        pd.testing.assert_frame_equal(other.drop(columns=scores), outputs[0].drop(columns=scores))
        np.testing.assert_allclose(
            other[scores].astype(float), outputs[0][scores].astype(float), rtol=1e-12, atol=1e-12
        )
    assert f"fitted on {min(n, int(fit_rows))}" in capsys.readouterr().err


def test_reservoir_is_a_uniform_sample_whatever_the_blocks():
    stream = np.arange(50, dtype=float)[:, None]
    counts = np.zeros(50)
    for seed in range(2000):
        reservoir = _Reservoir(10, 1, seed)
        for lo in range(0, 50, 7):
            reservoir.add(stream[lo : lo + 7])
        sample = reservoir.sample[:, 0]
        assert len(set(sample)) == 10
        counts[sample.astype(int)] += 1
        if seed < 20:  # the same draws with other block sizes
            other = _Reservoir(10, 1, seed)
            for lo in range(0, 50, 3):
                other.add(stream[lo : lo + 3])
            np.testing.assert_array_equal(other.sample, reservoir.sample)
    assert np.abs(counts / 2000 - 0.2).max() < 0.05  # every row kept with probability 10/50


def test_a_failure_while_writing_leaves_no_file(table, tmp_path, monkeypatch):
    path, _ = table
    out = tmp_path / "scored.csv"
    out.write_text("the previous result\n")
    calls = []

    def fail_on_second_chunk(df, fh, header=True):
        calls.append(len(df))
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        write(df, fh, header=header)

    write = cli.write_csv
    monkeypatch.setattr(cli, "write_csv", fail_on_second_chunk)
    assert (
        run_score(
            path, "--columns", "a", "b", "--method", "kde", "--chunksize", "100", "--out", out
        )
        == 2
    )
    assert out.read_text() == "the previous result\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scored.csv"]  # no partial file left


def _bad_inputs(tmp_path):
    good = tmp_path / "good.csv"
    pd.DataFrame({"a": [1.0, 2.0, 3.5, 4.0], "b": [2.0, 1.0, 0.0, 5.0]}).to_csv(good, index=False)
    files = {
        "text": "a,b\n1,2\n3,4\nabc,5\n6,7\n",
        "empty": "",
        "header": "a,b\n",
        "binary": "a,b\n1\x002\n",
        "constant": "a,b\n1,2\n1,3\n1,4\n",
        "score": "a,score\n1,2\n3,4\n",
    }
    for name, text in files.items():
        (tmp_path / f"{name}.csv").write_text(text)
    (tmp_path / "folder").mkdir()
    return {
        "text in a numeric column": (
            [tmp_path / "text.csv", "--columns", "a", "b"],
            "column 'a' is not numeric: data row 3 holds 'abc'",
        ),
        "missing column": (
            [good, "--columns", "a", "zz"],
            "no column named 'zz'; columns are: a, b",
        ),
        "nonexistent output folder": (
            [good, "--out", tmp_path / "no" / "such" / "o.csv"],
            "the folder of --out does not exist",
        ),
        "out is a folder": ([good, "--out", tmp_path / "folder"], "--out is a folder"),
        "out is the input": ([good, "--out", good], "--out is the input file"),
        "contamination 0.7": (
            [good, "--contamination", "0.7"],
            "must be a float in the range (0.0, 0.5]",
        ),
        "contamination 0.5 for mom_kde": (
            [good, "--method", "mom_kde", "--contamination", "0.5"],
            "contamination must be a number in [0, 0.5)",
        ),
        "empty file": ([tmp_path / "empty.csv"], "the file is empty"),
        "header only": ([tmp_path / "header.csv"], "the file has a header but no data rows"),
        "binary file": ([tmp_path / "binary.csv"], "the file is binary"),
        "constant column": ([tmp_path / "constant.csv"], "column(s) 'a' are constant"),
        "no such file": ([tmp_path / "nope.csv"], "cannot read"),
        "output name taken": ([tmp_path / "score.csv"], "already has a column named 'score'"),
        "unknown method": ([good, "--method", "iforest"], "invalid choice"),
        "chunksize 0": ([good, "--chunksize", "0"], "must be >= 1"),
        "fit-rows 1": ([good, "--fit-rows", "1"], "must be >= 2"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "text in a numeric column",
        "missing column",
        "nonexistent output folder",
        "out is a folder",
        "out is the input",
        "contamination 0.7",
        "contamination 0.5 for mom_kde",
        "empty file",
        "header only",
        "binary file",
        "constant column",
        "no such file",
        "output name taken",
        "unknown method",
        "chunksize 0",
        "fit-rows 1",
    ],
)
def test_score_bad_input_exits_2_with_one_line(case, tmp_path, capsys):
    argv, message = _bad_inputs(tmp_path)[case]
    if "--out" not in argv:
        argv = [*argv, "--out", tmp_path / "out.csv"]
    argv = [*argv, "--quiet"]  # (progress lines otherwise come before the error)
    before = set(tmp_path.rglob("*"))
    assert run_score(*argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert err.startswith("momkde") and "Traceback" not in err and len(err.splitlines()) == 1
    assert set(tmp_path.rglob("*")) == before  # nothing written


def test_score_reports_text_after_the_first_chunk_with_its_row(tmp_path, capsys):
    rows = "\n".join(f"{i},{i % 7}" for i in range(1, 120))
    (tmp_path / "late.csv").write_text(f"a,b\n{rows}\nx1,3\n")
    out = tmp_path / "o.csv"
    assert run_score(tmp_path / "late.csv", "--chunksize", "50", "--quiet", "--out", out) == 2
    err = capsys.readouterr().err.strip()
    assert (
        "column 'a' is not numeric: data row 120 holds 'x1' (1 non-numeric value(s) among data "
        "rows 101-120); name the columns to score with --columns" in err
    )
    assert len(err.splitlines()) == 1


# --- reproduce: arguments checked before computing; finished samples kept and resumed -------


def _forbid_computing(monkeypatch):
    def computed(task):
        raise AssertionError(f"a sample was computed: {task}")

    monkeypatch.setattr(_runner, "run_task", computed)


def _one_line_exit_2(argv, capsys):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.startswith("momkde") and "Traceback" not in err and len(err.splitlines()) == 1
    return err


SMALL_SWEEP = [
    "reproduce",
    "synthetic",
    "--reps",
    "1",
    "--ratios",
    "0.1",
    "--schemes",
    "uniform",
    "--n-inliers",
    "100",
    "--methods",
    "kde",
]


@pytest.mark.parametrize(
    "case, message",
    [
        ("out is a folder", "--out is a folder"),
        ("missing parent", "the folder of --out does not exist"),
        ("partial is a folder", "r.csv.partial is a folder"),
        ("scheduler notaurl", "--scheduler 'notaurl' is not a Dask scheduler address"),
        ("scheduler without port", "is not a Dask scheduler address"),
        ("reps text", "--reps: not an integer: 'ten'"),
        ("reps 0", "--reps: must be >= 1, got 0"),
        ("ratio 0", "--ratios: ratio must be in (0, 1), got 0"),
        ("ratio text", "--ratios: not a number: 'x'"),
        ("unknown method", "--methods: invalid choice: 'mom'"),
        ("unknown data set", "--datasets: invalid choice: 'mnist'"),
        ("data set of another kind", "--datasets does not apply to synthetic data"),
        ("n-inliers 1", "n_inliers must be an integer >= 5"),
        ("negative seed", "--seed: must be >= 0, got -1"),
        ("jobs 0", "--jobs: must be >= 1 or -1 (all cores), got 0"),
    ],
)
def test_reproduce_checks_every_argument_before_computing(
    case, message, tmp_path, capsys, monkeypatch
):
    _forbid_computing(monkeypatch)
    out = tmp_path / "r.csv"
    (tmp_path / "folder").mkdir()
    argv = {
        "out is a folder": [*SMALL_SWEEP, "--out", tmp_path / "folder"],
        "missing parent": [*SMALL_SWEEP, "--out", tmp_path / "no" / "r.csv"],
        "partial is a folder": [*SMALL_SWEEP, "--out", out],
        "scheduler notaurl": [*SMALL_SWEEP, "--scheduler", "notaurl", "--out", out],
        "scheduler without port": [*SMALL_SWEEP, "--scheduler", "tcp://host", "--out", out],
        "reps text": ["reproduce", "real", "--reps", "ten", "--out", out],
        "reps 0": ["reproduce", "real", "--reps", "0", "--out", out],
        "ratio 0": ["reproduce", "synthetic", "--ratios", "0.1", "0", "--out", out],
        "ratio text": ["reproduce", "synthetic", "--ratios", "x", "--out", out],
        "unknown method": ["reproduce", "real", "--methods", "kde", "mom", "--out", out],
        "unknown data set": ["reproduce", "real", "--datasets", "iris", "mnist", "--out", out],
        "data set of another kind": ["reproduce", "synthetic", "--datasets", "iris", "--out", out],
        "n-inliers 1": [*SMALL_SWEEP, "--n-inliers", "1", "--out", out],
        "negative seed": [*SMALL_SWEEP, "--seed", "-1", "--out", out],
        "jobs 0": [*SMALL_SWEEP, "--jobs", "0", "--out", out],
    }[case]
    if case == "partial is a folder":
        (tmp_path / "r.csv.partial").mkdir()
    before = set(tmp_path.rglob("*"))
    assert message in _one_line_exit_2(argv, capsys)
    assert set(tmp_path.rglob("*")) == before  # nothing written


def test_reproduce_refuses_an_unwritable_folder_before_computing(tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.access(locked, os.W_OK):  # root writes anywhere: the folder is made to look locked
        access = os.access
        monkeypatch.setattr(
            cli.os, "access", lambda path, mode: Path(path) != locked and access(path, mode)
        )
    try:
        _forbid_computing(monkeypatch)
        err = _one_line_exit_2([*SMALL_SWEEP, "--out", locked / "r.csv"], capsys)
        assert "cannot write in the folder of --out" in err
    finally:
        locked.chmod(0o700)


def test_reproduce_refuses_the_partial_file_of_another_sweep(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r.csv"
    ex.SweepFile(
        out,
        ex.make_tasks(
            "synthetic",
            ["uniform"],
            [0.1],
            reps=1,
            n_inliers=100,
            methods=["kde"],
            protocol="paper",
        ),
    ).open()
    _forbid_computing(monkeypatch)
    err = _one_line_exit_2([*SMALL_SWEEP, "--out", out], capsys)
    assert "r.csv.partial holds another sweep (its protocol differ); rerun with --restart" in err


SWEEP = [
    "reproduce",
    "synthetic",
    "--reps",
    "4",
    "--ratios",
    "0.1",
    "0.2",
    "0.3",
    "--schemes",
    "uniform",
    "thin_gaussian",
    "--n-inliers",
    "150",
    "--seed",
    "2",
    "--methods",
    "kde",
    "mom_kde_oracle",
    "spkde",
]


def _run_cli(*argv) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "momkde_core.cli", *map(str, argv)],
        cwd=Path(__file__).parents[2],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(scope="module")
def whole_sweep(tmp_path_factory):
    """The bytes of SWEEP's table, run without interruption."""
    whole = tmp_path_factory.mktemp("whole") / "whole.csv"
    assert _run_cli(*SWEEP, "--out", whole).wait(timeout=300) == 0
    return whole.read_bytes()


@pytest.mark.parametrize("how, jobs", [(signal.SIGKILL, "1"), (signal.SIGTERM, "2")])
def test_a_killed_sweep_resumes_to_the_same_table(whole_sweep, tmp_path, how, jobs):
    """A kill in the middle of a sweep (24 samples): its finished samples are on disk, the
    same command run again computes only the others, and the table is byte for byte the one
    of an uninterrupted run. SIGTERM (and SIGINT) stop it cleanly, with exit code 130 and
    the way to resume."""
    out = tmp_path / "r.csv"
    partial = tmp_path / "r.csv.partial"
    proc = _run_cli(*SWEEP, "--jobs", jobs, "--out", out)
    deadline = time.monotonic() + 120
    # the header and 2 samples' rows: killed early, so that the 22 samples left cannot all
    # finish between this check and the signal on a loaded machine (with 6, CI once saw the
    # sweep end, and exit 0, before the signal was delivered)
    rows_of_2 = 1 + 2 * 3 * len(METRICS)
    while time.monotonic() < deadline and proc.poll() is None:
        if partial.exists() and partial.read_bytes().count(b"\r\n") >= rows_of_2:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the sweep ended before it could be killed"
    proc.send_signal(how)
    _, err = proc.communicate(timeout=60)
    if how == signal.SIGTERM:
        assert proc.returncode == 130
        assert err.strip().splitlines()[-1] == (
            f"momkde: interrupted; the finished samples are kept in {partial}: run the same "
            "command again to resume"
        )
    assert not out.exists()
    done = pd.read_csv(partial)["seed"].nunique()
    assert 2 <= done < 24

    again = _run_cli(*SWEEP, "--out", out)
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert f"resuming {partial}: " in err and " of 24 samples already done" in err
    # byte for byte: every run is this machine's code with BLAS on one thread
    # (OMP_NUM_THREADS=1 in _run_cli), so bit-identity is the property
    assert out.read_bytes() == whole_sweep
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_a_failed_sample_is_one_line_exit_1_and_a_rerun_finishes(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r.csv"
    argv = [*SWEEP[:3], "1", *SWEEP[4:], "--out", str(out)]
    real_run_task = ex.run_task

    def fail_on_thin(task):
        if task.source == "thin_gaussian" and task.ratio == 0.2:
            raise ValueError("injected")
        return real_run_task(task)

    monkeypatch.setattr(_runner, "run_task", fail_on_thin)
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert (
        err.startswith("momkde: error: 1 sample(s) failed, the first thin_gaussian ratio 0.2 rep 0")
        and "ValueError: injected" in err
    )
    assert "r.csv.partial: run the same command again" in err
    monkeypatch.setattr(_runner, "run_task", real_run_task)
    assert main(argv) == 0
    assert "5 of 6 samples already done" in capsys.readouterr().err
    assert pd.read_csv(out)["seed"].nunique() == 6


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda df: df.assign(value=df["value"].astype(object).where(df.index != 3, "=1+1")),
            "column 'value' must hold numbers; data row 4 holds \"'=1+1\"",
        ),
        (
            lambda df: df.assign(ratio=df["ratio"].astype(object).where(df.index != 0, "ten")),
            "column 'ratio' must hold numbers; data row 1 holds 'ten'",
        ),
        (lambda df: df.drop(columns=["metric", "value"]), "missing column(s) metric, value"),
        (lambda df: df.iloc[:0], "has no rows"),
    ],
)
def test_figures_check_the_table_before_drawing(
    results_csv, tmp_path, capsys, monkeypatch, edit, message
):
    bad = tmp_path / "bad.csv"
    cli.write_csv(edit(pd.read_csv(results_csv)), bad)

    def drawn(*args, **kwargs):
        raise AssertionError("a figure was drawn")

    monkeypatch.setattr("momkde_core.plots.metric_vs_ratio_figure", drawn)
    err = _one_line_exit_2(["figures", bad, "--out", tmp_path / "figs"], capsys)
    assert message in err
    assert not (tmp_path / "figs").exists()


def _drawn_figures(monkeypatch) -> list:
    """The figures ``momkde figures`` draws from now on, in order (it still writes them)."""
    from momkde_core import plots

    drawn = []
    figure = plots.metric_vs_ratio_figure
    monkeypatch.setattr(
        plots,
        "metric_vs_ratio_figure",
        lambda part, *a, **k: drawn.append(figure(part, *a, **k)) or drawn[-1],
    )
    return drawn


def test_figures_give_each_runner_method_its_own_colour_and_name(tmp_path, monkeypatch):
    """The runner's mom_kde (label-free S rule) is drawn as the app draws it, apart from the
    library's default MoM-KDE (mom_kde_auto): no two methods share a colour or a name."""
    methods = list(ex.DEFAULT_SWEEP_METHODS + ex.BLOCKH_METHODS + ("kde_robust",))
    rows = [
        ("uniform", r, k, k, m, 1, 0.3, "js", r + k / 10)
        for r in (0.1, 0.2)
        for k in range(2)
        for m in methods
    ]
    table = tmp_path / "r.csv"
    cli.write_csv(pd.DataFrame(rows, columns=list(ex.COLUMNS)), table)
    drawn = _drawn_figures(monkeypatch)
    assert main(["figures", str(table), "--out", str(tmp_path / "f")]) == 0
    lines = [t for t in drawn[0].data if t.mode == "lines+markers"]
    assert len(lines) == len(methods)
    assert len({t.line.color for t in lines}) == len(methods)
    assert len({t.name for t in lines}) == len(methods)
    assert "MoM-KDE (S rule, CV h)" in {t.name for t in lines}


def test_figures_dash_a_line_that_would_hide_another(tmp_path, monkeypatch):
    """Two methods with the same means draw one line: the later one is dashed, as in the app;
    a line apart from them stays solid."""
    values = {"kde": (0.2, 0.4), "rkde": (0.2, 0.4), "spkde": (0.1, 0.3)}
    rows = [
        ("uniform", r, 0, 0, m, 1, 0.3, metric, v)
        for m, pair in values.items()
        for r, v in zip((0.1, 0.2), pair)
        for metric in ("js", "auc")
    ]
    table = tmp_path / "r.csv"
    cli.write_csv(pd.DataFrame(rows, columns=list(ex.COLUMNS)), table)
    drawn = _drawn_figures(monkeypatch)
    assert main(["figures", str(table), "--out", str(tmp_path / "f")]) == 0
    assert len(drawn) == 2  # js and auc
    for fig in drawn:
        dashes = {t.name: t.line.dash for t in fig.data if t.mode == "lines+markers"}
        assert dashes == {"KDE": "solid", "RKDE": "dash", "SPKDE": "solid"}


def test_a_parallel_sweep_reports_a_positive_rate_and_keeps_its_workers(
    tmp_path, capsys, monkeypatch
):
    """``reproduce --jobs 2``: each progress line gives the samples per second, which is
    below 1 for a sweep's samples (it read "0 samples/s"); no worker is stopped and
    replaced on the way (the warning "A worker stopped while some jobs were given to the
    executor")."""
    monkeypatch.setattr(progress, "LOG_SECONDS", 0.0)
    argv = ["reproduce", "synthetic", "--reps", "3", "--ratios", "0.1", "--schemes", "uniform"]
    argv += ["--n-inliers", "100", "--methods", "kde", "mom_kde_oracle", "--jobs", "2"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main([*argv, "--out", str(tmp_path / "r.csv")]) == 0
    assert not [w for w in caught if "worker stopped" in str(w.message)]
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("momkde: running")]
    assert len(lines) == 3 and lines[-1].startswith("momkde: running: 3 of 3 samples (100 %), ")
    rates = [float(line.split(", ")[-1].removesuffix(" samples/s")) for line in lines]
    assert all(rate > 0 for rate in rates)


PUMP = Path(__file__).resolve().parents[2] / "assets" / "pump_readings.csv"
PUMP_COLUMNS = ["pressure_bar", "flow_lpm", "temperature_c", "vibration_mm_s"]


def test_score_explain_adds_each_flagged_rows_most_blamed_features(tmp_path):
    """--explain 2 on the guide's sample: the planted feature(s) first, the contributions
    those of OutlierDetector.explain on the standardised columns, empty for the others."""
    from sklearn.preprocessing import StandardScaler

    from momkde_core import make_detector

    out = tmp_path / "explained.csv"
    argv = [PUMP, "--columns", *PUMP_COLUMNS, "--contamination", "0.02", "--explain", "2"]
    argv += ["--out", out, "-q"]  # (the label, a text column, would be scored as categorical)
    assert run_score(*argv) == 0
    scored = pd.read_csv(out)
    blame = ["blame_1", "blame_1_nats", "blame_2", "blame_2_nats"]
    assert list(scored.columns[-4:]) == blame
    flagged = scored[scored["is_outlier"]]
    assert scored.loc[~scored["is_outlier"], blame].isna().all().all()
    assert (flagged["blame_1_nats"] >= flagged["blame_2_nats"]).all()
    spikes = flagged[flagged["planted"] == "vibration spike"]
    pairs = flagged[flagged["planted"] == "pressure-flow pair"]
    assert len(spikes) == 6 and (spikes["blame_1"] == "vibration_mm_s").all()
    assert len(pairs) == 6
    assert all({a, b} == {"pressure_bar", "flow_lpm"} for a, b in pairs[blame[::2]].values)
    X = pd.read_csv(PUMP)[PUMP_COLUMNS].to_numpy()
    scaler = StandardScaler().fit(X)
    detector = make_detector("mom_kde_21", 0.02, 0).fit(scaler.transform(X))
    rows = flagged[PUMP_COLUMNS].to_numpy()
    expected = -np.sort(-detector.explain(scaler.transform(rows)), axis=1)[:, :2]
    np.testing.assert_allclose(flagged[["blame_1_nats", "blame_2_nats"]], expected, atol=1e-9)


def test_score_explain_with_several_methods_explains_the_first(table, tmp_path):
    path, _ = table
    whole, chunked = tmp_path / "whole.csv", tmp_path / "chunked.csv"
    argv = [path, "--columns", "a", "b", "--method", "mom_kde_21", "kde", "--explain", "1"]
    assert run_score(*argv, "--out", whole, "-q") == 0
    assert run_score(*argv, "--chunksize", "70", "--out", chunked, "-q") == 0
    scored = pd.read_csv(whole)
    first = scored["is_outlier_mom_kde_21"]
    assert scored["blame_1"].notna().eq(first).all()
    assert set(scored.loc[first, "blame_1"]) <= {"a", "b"}
    pd.testing.assert_frame_equal(pd.read_csv(chunked), scored)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--explain", "3"], "--explain 3: at most the number of scored columns (2)"),
        (["--explain", "0"], "--explain"),
    ],
)
def test_score_explain_is_checked_before_computing(
    table, tmp_path, capsys, monkeypatch, extra, message
):
    def fitted(*args):
        raise AssertionError("a detector was fitted")

    monkeypatch.setattr(cli, "_fit_detectors", fitted)
    path, _ = table
    argv = ["score", path, "--columns", "a", "b", *extra, "--out", tmp_path / "o.csv", "-q"]
    assert message in _one_line_exit_2(argv, capsys)
    assert not (tmp_path / "o.csv").exists()


def test_score_explain_refuses_columns_that_clash_with_the_file(tmp_path, capsys):
    path = tmp_path / "clash.csv"
    pd.DataFrame({"a": range(50), "b": np.arange(50) ** 2, "blame_1": 0}).to_csv(path, index=False)
    argv = [
        "score",
        path,
        "--columns",
        "a",
        "b",
        "--explain",
        "1",
        "-q",
        "--out",
        tmp_path / "o.csv",
    ]
    assert "blame_1" in _one_line_exit_2(argv, capsys)
