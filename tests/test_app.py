"""Every page of the app under Streamlit's AppTest: it runs without an exception, draws its
figures with the expected traces, and reports bad input with st.error, not a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
TIMEOUT = 60


def _open(page: str | None = None, **params: str) -> AppTest:
    """The app on ``page`` (a pages/ path), with URL query parameters ``params``."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _figures(at: AppTest) -> list[dict]:
    """The plotly figures of the page, as dicts."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _names(fig: dict) -> list[str]:
    return [trace.get("name", "") for trace in fig["data"]]


def test_home_shows_kde_and_mom_kde_and_links():
    at = _open()
    (fig,) = _figures(at)
    assert {"True density", "KDE", "MoM-KDE"} <= set(_names(fig))
    assert len(at.get("page_link")) == 5


def test_explore_1d_all_methods_blocks_and_metrics():
    at = _open("app_pages/explore.py", blocks="true", n="500")
    (fig,) = _figures(at)
    names = _names(fig)
    assert {"True density", "KDE", "MoM-KDE", "RKDE", "SPKDE"} <= set(names)
    assert any(n.startswith("S = 21 block KDEs") for n in names)
    assert len(at.table) == 1
    at.slider(key="S").set_value(41).run()
    assert not at.exception
    assert any(n.startswith("S = 41 block KDEs") for n in _names(_figures(at)[0]))


def test_explore_2d_and_kernel_without_spkde():
    at = _open("app_pages/explore.py", dim="2", n="200", kernel="epanechnikov")
    (fig,) = _figures(at)
    assert sum(t["type"] == "contour" for t in fig["data"]) == 4  # truth, KDE, MoM-KDE, RKDE
    assert any("SPKDE" in w.value for w in at.warning)


def test_sweep_draws_four_metrics():
    at = _open("app_pages/sweep.py", reps="1", n="200")
    figs = _figures(at)
    assert len(figs) == 4
    assert {"KDE", "MoM-KDE", "RKDE", "SPKDE"} <= set(_names(figs[0]))
    assert len(at.get("download_button")) == 1


def test_real_data_iris_and_install_hint(monkeypatch, tmp_path):
    monkeypatch.setenv("MOMKDE_DATA_DIR", str(tmp_path))  # an empty data directory
    at = _open("app_pages/real_data.py", reps="1", sets=["iris", "banana"])
    figs = _figures(at)
    assert len(figs) == 1 and "MoM-KDE" in _names(figs[0])
    hints = [i.value for i in at.info]
    assert any("banana" in h and "not installed" in h and "MOMKDE_DATA_DIR" in h for h in hints)


def test_your_data_discrete_column_warns_about_cv():
    """sensor_glitches.csv's hour column is discrete: drawn alone, CV runs into its smallest h.
    It is not what the page draws by default (the column with the most distinct values)."""
    default = _open("app_pages/your_data.py", sample="sensor_glitches.csv")
    assert default.sidebar.multiselect[0].value != ["hour"]
    at = _open("app_pages/your_data.py", sample="sensor_glitches.csv", plot="hour", score="hour")
    assert any("smallest candidate" in w.value for w in at.warning), [w.value for w in at.warning]


def test_learn_smallest_bandwidth_many_blocks():
    """h = 0.05 with S up to 60: the block median vanishes for large S; no traceback."""
    at = _open("app_pages/learn.py", o="5", h="0.05", S="60")
    assert not at.error, [e.value for e in at.error]
    assert len(_figures(at)) == 2


def test_learn_example_one():
    at = _open("app_pages/learn.py", o="3", S="11")
    figs = _figures(at)
    assert len(figs) == 2
    errors = {t["name"]: t["y"] for t in figs[1]["data"]}
    assert "MoM-KDE" in errors and "KDE" in errors


@pytest.mark.parametrize("sample", ["sensor_glitches.csv", "card_transactions.csv", "paper_thin_gaussian.csv"])
def test_your_data_samples(sample):
    at = _open("app_pages/your_data.py", sample=sample)
    assert not at.error, [e.value for e in at.error]
    assert len(_figures(at)) == 1
    assert len(at.get("download_button")) == 1
