"""The ``momkde`` command: reproduce -> CSV -> figures round trip, and one-line errors (exit 2)."""

import pandas as pd
import pytest

from momkde_core import experiments as ex
from momkde_core.cli import main


@pytest.fixture(scope="module")
def results_csv(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "results.csv"
    code = main(["reproduce", "synthetic", "--reps", "2", "--ratios", "0.1", "0.2",
                 "--schemes", "thin_gaussian", "--n-inliers", "200", "--seed", "3",
                 "--methods", "kde", "mom_kde_oracle", "spkde", "--out", str(out)])
    assert code == 0
    return out


def test_reproduce_writes_the_tidy_table(results_csv):
    df = pd.read_csv(results_csv)
    assert tuple(df.columns) == ex.COLUMNS
    assert set(df["method"]) == {"kde", "mom_kde_oracle", "spkde"}
    assert sorted(df["ratio"].unique()) == [0.1, 0.2]
    assert len(df) == 2 * 2 * 3 * len(ex.METRICS)


def test_block_bandwidth_flag_adds_the_two_block_aware_methods(tmp_path):
    out = tmp_path / "blockh.csv"
    assert main(["reproduce", "synthetic", "--reps", "1", "--ratios", "0.2", "--schemes",
                 "uniform", "--n-inliers", "100", "--methods", "kde", "--block-bandwidth",
                 "--out", str(out)]) == 0
    assert set(pd.read_csv(out)["method"]) == {"kde", *ex.BLOCKH_METHODS}


def test_figures_write_offline_html_per_source_and_metric(results_csv, tmp_path, capsys):
    assert main(["figures", str(results_csv), "--out", str(tmp_path / "figs")]) == 0
    files = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert files == [f"thin_gaussian_{m}.html" for m in sorted(("js", "kl_fhat_f", "kl_f_fhat", "auc"))]
    html = (tmp_path / "figs" / "thin_gaussian_js.html").read_text()
    assert "MoM-KDE (oracle S)" in html and "SPKDE" in html and "KDE" in html
    assert "plotly.js v" in html or "Plotly" in html[:200000]  # plotly.js inlined, works offline
    assert "<script src=\"https://cdn.plot.ly" not in html


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "synthetic", "--ratios", "1.5", "--out", "x.csv"], "ratio must be in (0, 1)"),
    (["reproduce", "synthetic", "--schemes", "bogus", "--out", "x.csv"], "invalid choice"),
    (["reproduce", "synthetic", "--reps", "0", "--out", "x.csv"], "must be >= 1"),
    (["reproduce", "synthetic"], "--out"),
    (["reproduce", "synthetic", "--datasets", "iris", "--out", "x.csv"], "--datasets does not apply to synthetic"),
    (["reproduce", "synthetic", "--out", "/no/such/dir/x.csv"], "does not exist"),
    (["figures", "/no/such/file.csv", "--out", "figs"], "cannot read"),
    (["frobnicate"], "invalid choice"),
])
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
    pytest.importorskip("kaleido", reason="static images need kaleido (the docs extra)")
    out = tmp_path / "svg"
    assert main(["figures", str(results_csv), "--out", str(out), "--format", "svg",
                 "--methods", "kde", "mom_kde_oracle"]) == 0
    svg = (out / "thin_gaussian_js.svg").read_text()
    assert svg.lstrip().startswith("<svg") and "MoM-KDE (oracle S)" in svg
    assert "SPKDE" not in svg  # only the methods asked for


def test_figures_report_an_unknown_method_and_a_failed_render_in_one_line(results_csv, tmp_path,
                                                                         capsys, monkeypatch):
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
    code = main(["reproduce", "real", "--datasets", "banana", "iris", "--data-dir", str(tmp_path),
                 "--reps", "1", "--ratios", "0.1", "--methods", "kde", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0
    assert "skipping banana" in err and "MOMKDE_DATA_DIR" in err
    assert set(pd.read_csv(out)["source"]) == {"iris"}
