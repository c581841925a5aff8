"""End to end in headless Chromium: every page renders without an exception box or a console
error, a slider moves the Explore figure, a bad CSV gets a readable error, and the Explore
page is photographed into tests/_artifacts/ (to look at; the README's images in assets/ are
taken by benchmarks/screenshots.py, so the suite never rewrites a tracked file).

Needs Debian's /usr/bin/chromium (never a downloaded browser); skipped when it is missing.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# the helpers shared with the browser benchmarks (the repository root is on sys.path by
# pyproject.toml's pythonpath): an error importing them is the suite's own, and fails
from app_support.choices import block_options
from benchmarks.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    TRACE,
    curve_path,
    free_port,
    streamlit_command,
    wait_until_idle,
)

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
#: What a page draws once it is ready, by kind: Plotly's curves, Plotly's 2-D maps,
#: Explore's live figure.
CURVES, MAPS, LIVE = TRACE, ".js-plotly-plot .heatmaplayer image", '[data-testid="live-lesson"]'
#: Every page at the URL a link or the sidebar opens it on, and Explore with its Plotly
#: figure; what each draws when it is ready.
PAGES = {
    "": LIVE,
    "?fig=plotly": CURVES,
    "explore": LIVE,
    "explore?dim=2": LIVE,
    "explore?dim=2&fig=plotly": MAPS,
    "explore?fig=plotly": CURVES,
    "sweep": CURVES,
    "your_data": CURVES,
    "real_data": CURVES,
    "learn": CURVES,
}

# skipped only for a missing optional component, named; a broken install fails on import
if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is missing: install Debian's chromium package to run the browser tests",
        allow_module_level=True,
    )
if importlib.util.find_spec("playwright") is None:
    pytest.skip(
        "the playwright python package is not installed (pip install -e '.[test]')",
        allow_module_level=True,
    )
from playwright import sync_api  # noqa: E402


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """``streamlit run app.py`` on a free port, stopped when the module's tests are done."""
    port = free_port()
    proc = subprocess.Popen(
        streamlit_command(port),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.25)
        else:
            pytest.fail("streamlit did not start within 30 s")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a script run still going on a loaded machine
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh tab that records every console error, with the address it came from, and every
    uncaught exception of the page (``page.console_errors``)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    tab.console_errors = []
    tab.on(
        "console",
        lambda msg: (
            tab.console_errors.append(f"{msg.text} ({msg.location.get('url', '')})")
            if msg.type == "error"
            else None
        ),
    )
    tab.on("pageerror", lambda err: tab.console_errors.append(str(err)))
    yield tab
    context.close()


@pytest.mark.parametrize("path", PAGES)
def test_every_page_opens_without_a_console_error(server, page, path):
    """A fresh browser opening a page at its own URL: it draws its figures, shows no
    exception, and logs no error in the console (#53; the frontend's probe of the page's
    path for the server, two 404s on every page but Home, is answered by ``app.py``'s
    routes)."""
    page.goto(f"{server}/{path}")
    wait_until_idle(page)
    page.wait_for_selector(PAGES[path], state="attached", timeout=60_000)
    wait_until_idle(page)
    page.wait_for_timeout(500)  # (an error logged late, by a figure's last redraw)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.console_errors == []


def _screenshot(page, name: str, full_page: bool = False) -> None:
    """The page as it looks, after its last redraw settled, into tests/_artifacts/``name``."""
    page.wait_for_timeout(400)
    artifacts = REPO / "tests" / "_artifacts"
    artifacts.mkdir(exist_ok=True)
    page.screenshot(path=str(artifacts / name), full_page=full_page)


def test_explore_slider_redraws_and_screenshot(server, page):
    page.goto(f"{server}/explore?blocks=true&Smode=manual&fig=plotly")
    wait_until_idle(page)
    page.wait_for_selector(TRACE, timeout=60_000)
    before = curve_path(page)
    # the S slider (log-spaced values, manual from the link): steps right from S = 21 (a
    # rerun may swallow a key press, so the test asks for a move right, not a count)
    options = block_options(1111, 225, 21)  # (n = 1000 inliers + 111 outliers, S auto 225)
    thumb = (
        page.locator('[data-testid="stSlider"]')
        .filter(has=page.get_by_text(re.compile(r"^S \(auto would be \d+\)")))
        .locator('input[type="range"]')
    )
    thumb.focus()
    start = time.perf_counter()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        """(before) => Array.from(document.querySelectorAll('.js-plotly-plot .scatterlayer .trace path.js-line'))
                       .map(p => p.getAttribute('d')).join('|') !== before""",
        arg=before,
        timeout=30_000,
    )
    elapsed = time.perf_counter() - start
    print(f"slider redraw: {elapsed:.3f} s")
    page.wait_for_function(
        "() => Number(new URLSearchParams(window.location.search).get('S')) > 21",
        timeout=30_000,
    )
    wait_until_idle(page)
    moved = int(page.evaluate("() => new URLSearchParams(window.location.search).get('S')"))
    assert moved in options and 21 < moved <= options[options.index(21) + 5]
    assert page.locator('[data-testid="stException"]').count() == 0
    _screenshot(page, "explore.png")
    assert page.console_errors == []


BAD_FILES = {
    "no_numbers.csv": (b"name,comment\nalpha,hello\nbeta,world\n", "no numeric column"),
    "empty.csv": (b"", "empty"),
    "image.csv": (b"\x89PNG\x00\x00binary", "binary"),
    "letters.csv": (
        "température;humidité\nchaud;humide\n".encode("latin-1"),
        "température, humidité",
    ),
    "one_row.csv": (b"x,y\n1,2\n", "at least 2"),
}


@pytest.mark.parametrize("name", BAD_FILES)
def test_bad_upload_shows_error(server, page, tmp_path, name):
    content, message = BAD_FILES[name]
    bad = tmp_path / name
    bad.write_bytes(content)
    _upload(page, server, bad)
    page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=30_000)
    assert message in page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0


def _upload(page, server: str, path, url: str = "your_data?sample=upload") -> None:
    """Upload ``path`` to Your data opened at ``url`` (by default on the upload, not on the
    sample the page opens with)."""
    page.goto(f"{server}/{url}")
    wait_until_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))


def test_your_data_opens_on_a_sample_and_an_upload_replaces_it(server, page, tmp_path):
    """#36: the page opens on the sensor sample (its banner, figure and ranking), the uploader
    beside it; a file uploaded replaces the sample and the URL says so."""
    page.goto(f"{server}/your_data")
    page.wait_for_selector(TRACE, timeout=60_000)
    wait_until_idle(page)
    assert (
        "Where MoM-KDE wins."
        in page.locator('[data-testid="stAlertContentInfo"]').first.inner_text()
    )
    assert page.locator('[data-testid="stDataFrame"]').count() >= 1
    path = tmp_path / "mine.csv"
    rng = np.random.default_rng(1)
    pd.DataFrame(rng.normal(size=(200, 2)).round(3), columns=["alpha", "beta"]).to_csv(
        path, index=False
    )
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.wait_for_function(
        "() => new URLSearchParams(window.location.search).get('sample') === 'upload'",
        timeout=60_000,
    )
    page.wait_for_function(
        """() => document.querySelector('[data-testid="stSidebar"]').innerText.includes('alpha')""",
        timeout=60_000,
    )
    wait_until_idle(page)
    assert "Where MoM-KDE wins." not in page.locator("body").inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.console_errors == []


def test_text_in_numbers_is_named(server, page, tmp_path):
    """A numeric column with a typo is not silently dropped: the page names row and value."""
    bad = tmp_path / "text_in_numbers.csv"
    bad.write_text("x,y\n" + "".join(f"{i},{i * 2}\n" for i in range(20)).replace("7,14", "7,oops"))
    _upload(page, server, bad)
    warning = page.locator('[data-testid="stAlertContentWarning"]').filter(has_text="not numeric")
    warning.first.wait_for(timeout=30_000)
    assert "data row 8 holds 'oops'" in warning.first.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0


@pytest.mark.parametrize(
    ("name", "content"),
    [
        (
            "latin1.csv",
            "température;humidité\n" + "".join(f"{i},5;{i * 2},25\n" for i in range(30)),
        ),
        ("utf16.csv", "température,humidité\n" + "".join(f"{i}.5,{i * 2}.25\n" for i in range(30))),
    ],
)
def test_encodings_and_decimal_commas_are_read(server, page, tmp_path, name, content):
    """Latin-1 headers are not mangled, UTF-16 is not called binary, a semicolon file with
    decimal commas is read as numbers; the page says how it read the file."""
    path = tmp_path / name
    path.write_bytes(content.encode("latin-1" if name == "latin1.csv" else "utf-16"))
    _upload(page, server, path)
    page.wait_for_selector(TRACE, timeout=60_000)
    wait_until_idle(page)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "température" in sidebar and "humidité" in sidebar
    assert any(
        t.startswith("Read as")
        for t in page.locator('[data-testid="stCaptionContainer"]').all_inner_texts()
    )
    assert page.locator('[data-testid="stException"]').count() == 0


def test_wide_csv_scores_without_a_traceback(server, page, tmp_path):
    """500 columns: the first 20 are scored by default (a density in 500 dimensions says
    nothing), and no method's failure becomes a traceback box."""
    rng = np.random.default_rng(0)
    wide = tmp_path / "wide.csv"
    pd.DataFrame(
        rng.normal(size=(300, 500)).round(3), columns=[f"c{i}" for i in range(500)]
    ).to_csv(wide, index=False)
    _upload(page, server, wide)
    page.wait_for_selector(TRACE, timeout=90_000)
    wait_until_idle(page, 90_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert (
        "c20 to c499, 480 columns (past the first 20 columns)"
        in page.locator('[data-testid="stSidebar"]').inner_text()
    )
    assert page.console_errors == []


def test_2d_caption_names_no_missing_lines(server, page):
    page.goto(f"{server}/your_data?sample=sensors&plot=temperature_c&plot=humidity_pct")
    wait_until_idle(page)
    page.wait_for_selector(".js-plotly-plot .heatmaplayer image", timeout=60_000)
    text = " ".join(page.locator('[data-testid="stCaptionContainer"]').all_inner_texts())
    assert "One colour scale for all maps" in text and "orange" not in text and "pink" not in text


def test_200000_row_file_is_scored_in_full(server, page, tmp_path):
    """The issue's case: 200,000 rows are all scored and downloaded with their row numbers;
    the figure draws 5,000 of them and its caption says so; no sampling notice."""
    rng = np.random.default_rng(0)
    big = tmp_path / "big.csv"
    n = 200_000
    pd.DataFrame({"a": rng.normal(size=n).round(4), "b": rng.normal(size=n).round(4)}).to_csv(
        big, index=False
    )
    _upload(page, server, big)
    # two numeric columns: drawn together, as 2-D maps
    page.locator(".js-plotly-plot .heatmaplayer image").first.wait_for(timeout=180_000)
    wait_until_idle(page, 180_000)
    page.get_by_text("What the download holds").click()
    page.get_by_text("every one of the file's 200,000 rows").first.wait_for(timeout=30_000)
    captions = " ".join(page.locator('[data-testid="stCaptionContainer"]').all_inner_texts())
    assert "Drawn from 5,000 of the 200,000 rows (a uniform sample)" in captions
    assert "every one of the file's 200,000 rows" in captions
    assert (
        not page.locator('[data-testid="stAlertContentInfo"]')
        .filter(has_text="momkde score")
        .count()
    )
    # (a file of 200,000 rows and every method's columns, served by a loaded CI machine)
    with page.expect_download(timeout=240_000) as download:
        page.get_by_role("button", name="Download the data").click()
    back = pd.read_csv(download.value.path())
    assert len(back) == n and (back["row"] == np.arange(1, n + 1)).all()
    assert back["score_mom_kde"].notna().all()
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.console_errors == []


def test_switching_sample_shows_the_new_files_columns(server, page):
    """The column pickers follow the file: after switching samples the sidebar shows the new
    file's columns, not the previous file's (which the script no longer used)."""
    page.goto(f"{server}/your_data?sample=cards")
    wait_until_idle(page)
    page.wait_for_selector(TRACE, timeout=60_000)
    pickers = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]')
    assert "amount_eur" in pickers.first.inner_text()
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name="sensors").click()
    page.wait_for_function(
        """() => { const m = document.querySelector('[data-testid="stSidebar"] [data-testid="stMultiSelect"]');
                   return m && !m.innerText.includes('amount_eur'); }""",
        timeout=60_000,
    )
    wait_until_idle(page)
    drawn, scored = (pickers.nth(i).inner_text() for i in (0, 1))
    assert "amount_eur" not in drawn + scored
    assert "humidity_pct" in scored and "temperature_c" in scored
    # the label of the outliers follows the file too (it showed the previous file's value)
    # (the pickers above are drawn before it in the same script run: wait for the run to
    # reach it, as a loaded machine may show the old value for a moment)
    outlier = page.locator(
        '[data-testid="stSidebar"] [data-testid="stSelectbox"]', has_text="Label of the outliers"
    )
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll('[data-testid="stSidebar"] [data-testid="stSelectbox"]'))
                     .some(b => b.innerText.includes('Label of the outliers')
                                && Array.from(b.querySelectorAll('input')).some(i => i.value.includes('glitch')))""",
        timeout=60_000,
    )
    shown = outlier.inner_text() + " ".join(i.input_value() for i in outlier.locator("input").all())
    assert "glitch" in shown, outlier.inner_html()
    assert page.locator('[data-testid="stException"]').count() == 0


def test_download_escapes_formulas(server, page, tmp_path):
    """A file whose text cells start with "=", "+", "-", "@" comes back from the Your data
    download with each of them behind a "'" (a spreadsheet shows text, runs no formula);
    numbers such as -1.5 are untouched, and every method's flags are there."""
    rng = np.random.default_rng(0)
    texts = ['=HYPERLINK("http://evil","x")', "+1+2", "-2+3", "@SUM(A1)", "plain"]
    upload = tmp_path / "formulas.csv"
    pd.DataFrame(
        {"x": np.round(rng.normal(size=50), 3), "note": [texts[i % 5] for i in range(50)]}
    ).assign(x=lambda d: d["x"].where(d.index != 0, -1.5)).to_csv(upload, index=False)
    _upload(page, server, upload)
    page.wait_for_selector(TRACE, timeout=60_000)
    wait_until_idle(page)
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="Download the data").click()
    back = pd.read_csv(download.value.path(), keep_default_na=False)
    assert sorted(set(back["note"])) == sorted(["'" + t for t in texts[:4]] + ["plain"])
    assert back.loc[0, "x"] == -1.5 and back["x"].dtype == float
    # (the text column is scored as a category: RKDE and SPKDE, which read numbers only, are
    # not run on such a table, and the page says so)
    assert {f"is_outlier_{m}" for m in ("kde", "mom_kde")} <= set(back.columns)
    assert page.console_errors == []


def test_method_links_hold_codes_and_old_links_still_work(server, page):
    """A link with the old display labels selects the same methods (shown as their codes), a
    later rerun keeps them without a warning about the widget's default, and a new choice
    writes method keys into the URL."""
    page.goto(f"{server}/real_data?sets=iris&methods=KDE&methods=MoM-KDE+(S+rule,+CV+h)")
    wait_until_idle(page)
    page.wait_for_selector(TRACE, timeout=60_000)
    picker = page.locator(
        '[data-testid="stSidebar"] [data-testid="stMultiSelect"]', has_text="Methods"
    )
    assert picker.inner_text().split()[1:] == ["kde", "mom_kde_rule"]
    page.goto(f"{server}/explore?n=200&methods=KDE&methods=MoM-KDE&fig=plotly")
    wait_until_idle(page)
    page.wait_for_selector(TRACE, timeout=60_000)
    assert "mom_kde" in picker.inner_text() and "rkde" not in picker.inner_text()
    page.get_by_text("Block KDEs", exact=True).click()  # a rerun with the value already set
    page.wait_for_selector(".js-plotly-plot .scatterlayer .trace:nth-child(4)", timeout=60_000)
    wait_until_idle(page)
    assert "mom_kde" in picker.inner_text() and "rkde" not in picker.inner_text()
    texts = page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts()
    assert not any("default value" in t for t in texts), texts
    picker.locator("input").click()
    page.get_by_role("option", name="rkde").click()
    page.wait_for_function("() => window.location.search.includes('methods=rkde')", timeout=30_000)
    assert "methods=kde&methods=mom_kde&methods=rkde" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.console_errors == []


#: Plotly's lowest Viridis colour: where a map's density is at or below the scale's floor.
VIRIDIS_FLOOR = np.array([68, 1, 84])
#: Pixel positions of the data points (x, y) on each heatmap's axes, read from Plotly's own
#: axis objects (l2p: linear to pixels, plus the plot area's offset).
PANEL_PIXELS_JS = """(points) => {
    const gd = document.querySelector('.js-plotly-plot');
    const box = gd.getBoundingClientRect();
    return gd._fullData.filter(t => t.type === 'heatmap').map(t => {
        const xa = gd._fullLayout[t.xaxis.replace('x', 'xaxis')];
        const ya = gd._fullLayout[t.yaxis.replace('y', 'yaxis')];
        return [t.name, points.map(([x, y]) => [box.left + xa._offset + xa.l2p(x),
                                               box.top + ya._offset + ya.l2p(y)])];
    });
}"""


def test_default_2d_view_shows_the_kdes_outlier_mass(server, page, tmp_path):
    """#26: on the default 2-D view (uniform outliers on [-3, 9]², ratio 0.1), the KDE's map
    shows the outliers' mass far from both inlier modes in a colour above the scale's floor,
    where MoM-KDE's map is at the floor: the pixels drawn, read from a screenshot (the Plotly
    maps, ``fig=plotly``; the live maps' numbers: tests/app/test_live_lesson.py)."""
    from PIL import Image

    page.goto(f"{server}/explore?dim=2&fig=plotly")
    wait_until_idle(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot .heatmaplayer image').length === 5",
        timeout=60_000,
    )
    page.wait_for_timeout(500)  # the images decoded and painted
    # a corner far from both modes, (0, 0) and (6, 6): only outliers there
    points = [[x, y] for x in (-2.5, -2.0, -1.5) for y in (7.5, 8.0, 8.5)]
    panels = dict(page.evaluate(PANEL_PIXELS_JS, points))
    shot = tmp_path / "explore_2d.png"
    page.screenshot(path=str(shot), full_page=True)
    pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=float)

    def distance_from_floor(name: str) -> float:
        colours = [pixels[int(round(py)), int(round(px))] for px, py in panels[name]]
        return float(np.median([np.linalg.norm(c - VIRIDIS_FLOOR) for c in colours]))

    assert distance_from_floor("KDE") > 60  # a colour of its own on the scale
    assert distance_from_floor("MoM-KDE") < 25  # the floor colour: no mass there
    assert distance_from_floor("True density") < 25
    assert page.console_errors == []


def test_your_data_explains_a_flagged_row_and_screenshot(server, page):
    """#35: the bars of the flagged rows' contributions and a linked row's views are drawn
    (bars, the row's red star in the pair view, its lines on the histograms)."""
    page.goto(f"{server}/your_data?sample=sensors&why=823")
    wait_until_idle(page)
    page.get_by_text("Why these rows are flagged").first.scroll_into_view_if_needed()
    page.wait_for_selector(".js-plotly-plot .barlayer .trace", timeout=60_000)
    caption = page.get_by_text(re.compile(r"^Top left: row 823's contributions"))
    caption.scroll_into_view_if_needed()
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll('.js-plotly-plot .legendtext'))
                   .some(t => t.textContent === 'row 823')""",
        timeout=30_000,
    )
    assert "temperature_c" in caption.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    _screenshot(page, "your_data_why.png")
    assert page.console_errors == []


def test_median_at_work_click_locks_x0_and_k_fills_the_blocks(server, page):
    """#36: the link places 12 outliers at 3 with S = 21 held; a click on the figure locks
    x0 where it was clicked (the URL says so), and one more outlier redraws the strip of the
    block KDEs, whose red blocks are counted in its legend."""
    page.goto(f"{server}/explore?scheme=none&Smode=manual&S=21&k=12&at=3&x0=3&fig=plotly")
    page.wait_for_selector(TRACE, timeout=60_000)
    wait_until_idle(page)
    legend = page.locator('[data-testid="stPlotlyChart"]').nth(1).locator(".legendtext")
    legend.first.wait_for(timeout=30_000)
    assert any("with an outlier near x₀" in t for t in legend.all_text_contents())
    area = page.locator('[data-testid="stPlotlyChart"]').first.locator(".nsewdrag").first
    box = area.bounding_box()
    x, y = box["x"] + 0.2 * box["width"], box["y"] + 0.5 * box["height"]
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    page.mouse.click(x, y)
    page.wait_for_function(
        "() => new URLSearchParams(window.location.search).get('x0') !== null", timeout=30_000
    )
    wait_until_idle(page)
    clicked = float(page.evaluate("() => new URLSearchParams(window.location.search).get('x0')"))
    assert clicked < 2.5  # the left fifth of the plot: the first inlier mode's side
    thumb = (
        page.locator('[data-testid="stSlider"]')
        .filter(has_text="Place k outliers")
        .first.get_by_role("slider")
    )
    thumb.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => Number(new URLSearchParams(window.location.search).get('k')) > 12", timeout=30_000
    )
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    _screenshot(page, "median_at_work.png", full_page=True)
    assert page.console_errors == []


def test_disabled_sliders_stay_out_of_the_url(server, page):
    """#43: at the rules (robust h, S auto) the h and S sliders are disabled and show the
    values in use; they wrote h and S into the URL, so a link held numbers no user chose.
    Switched to by-hand, h starts from the robust h, where a link without h opens too."""
    page.goto(f"{server}/explore?scheme=none&k=12&at=3&fig=plotly")
    page.wait_for_selector(TRACE, timeout=60_000)
    wait_until_idle(page)
    page.wait_for_timeout(500)  # (the frontend writes bound widgets' values after drawing)
    query = page.evaluate("() => Object.fromEntries(new URLSearchParams(window.location.search))")
    assert "h" not in query and "S" not in query, query
    label = page.get_by_text(re.compile(r"^h \(robust: [\d.]+\)")).first.text_content()
    h_rule = float(re.search(r"robust: ([\d.]+)", label).group(1))
    page.locator('[data-testid="stButtonGroup"]').filter(has_text="robust").get_by_text(
        "slider", exact=True
    ).click()
    page.wait_for_function(
        "() => new URLSearchParams(window.location.search).get('hmode') === 'slider'",
        timeout=30_000,
    )
    wait_until_idle(page)
    by_hand = page.get_by_role("group", name="h", exact=True).locator('input[type="range"]')
    shown = float(by_hand.input_value())
    assert shown == pytest.approx(h_rule, abs=0.006)
    # the link as it stands now opens on the same h
    page.goto(page.url)
    wait_until_idle(page)
    assert float(by_hand.input_value()) == shown
    assert page.console_errors == []


def test_a_constant_column_is_left_out_and_said_so(server, page, tmp_path):
    """#43: a constant column was chosen by default, then rejected in red; it is now left out
    of the columns scored, and the sidebar says why."""
    flat = tmp_path / "constant.csv"
    flat.write_bytes(b"x,y\n1,2\n1,3\n1,4\n1,5\n1,7\n")
    _upload(page, server, flat)
    page.get_by_text("x (constant)").first.wait_for(timeout=60_000)
    wait_until_idle(page)
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
