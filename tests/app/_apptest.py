"""Helpers shared by the AppTest suites of tests/app: open the app on a page, read its plotly
figures and captions, upload a file to Your data and read the file it offers for download."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 60
YOUR_DATA = "app_pages/your_data.py"
EXPLORE = "app_pages/explore.py"
#: Explore's AppTests read its Plotly figure and strip unless they ask for the live figure:
#: AppTest does not run a component's script (it holds the live figure as an unknown element).
EXPLORE_FIGURE = {"fig": "plotly"}


def open_app(page: str | None = None, **params: str | list[str]) -> AppTest:
    """The app on ``page`` (a pages/ path; home if None), with URL query parameters ``params``
    (on Explore, :data:`EXPLORE_FIGURE` unless ``params`` say ``fig``)."""
    if page == EXPLORE:
        params = {**EXPLORE_FIGURE, **params}
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload(name: str, content: bytes, **params: str | list[str]) -> AppTest:
    """Your data with ``content`` uploaded as ``name`` (and URL parameters ``params``); the
    page is opened on the upload (``sample=upload``), not on the sample it opens with, unless
    ``params`` name another source."""
    at = open_app(YOUR_DATA, **{"sample": "upload", **params})
    at.sidebar.file_uploader(key="upload").set_value((name, content, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def figures(at: AppTest) -> list[dict]:
    """The plotly figures of the page, as dicts."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def density_figures(at: AppTest) -> list[dict]:
    """The plotly figures of the page without Your data's explanations of its flags (the
    bars of contributions and a flagged row's views, whose titles and axes count nats)."""
    return [
        fig
        for fig in figures(at)
        if "nats" not in json.dumps(fig["layout"].get("xaxis", {}).get("title", ""))
        and "nats" not in json.dumps(fig["layout"].get("annotations", []))
    ]


def names(fig: dict) -> list[str]:
    """The legend names of a figure's traces, in drawing order ("" for an unnamed one)."""
    return [trace.get("name", "") for trace in fig["data"]]


def caption(at: AppTest, start: str) -> str:
    """The first caption of the page that starts with ``start``."""
    return next(c.value for c in at.caption if c.value.startswith(start))


def values(data) -> np.ndarray:
    """A trace's array as floats: a list, or plotly's typed array ({"dtype", "bdata"})."""
    if isinstance(data, dict):
        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"]).astype(float)
    return np.asarray(data, dtype=float)


def read_download(downloads: dict[str, bytes], at: AppTest) -> pd.DataFrame:
    """The page's first download (recorded by the ``downloads`` fixture), as a DataFrame."""
    return pd.read_csv(io.BytesIO(downloads[at.get("download_button")[0].proto.url]))


def explore_text(at: AppTest) -> str:
    """What Explore says about its figure: the headline, the reasons behind its expander and
    the figure's caption, joined."""
    said = [
        i.value for i in at.info if "Over the whole axis" in i.value or "No outliers" in i.value
    ]
    said += [m.value[2:] for m in at.markdown if m.value.startswith("- ")]
    said += [c.value for c in at.caption if "x₀ of the strip below" in c.value]
    return " ".join(said)


def shown_blocks(at: AppTest):
    """Explore's S slider as shown: the bound one (manual), or the disabled one at S auto."""
    sliders = [s for s in at.select_slider if s.key == "S" or s.label.startswith("S (auto")]
    (slider,) = sliders
    return slider


def shown_bandwidth(at: AppTest):
    """The h slider as shown: the bound one (slider), or the disabled one at the rule's h."""
    (slider,) = [s for s in at.slider if s.key == "h" or s.label.startswith("h (")]
    return slider
