"""The momkde app: page configuration, navigation over every page, and the Home page; and
the server that serves them (:data:`app`, a :class:`streamlit.App`), which ``streamlit run
app.py`` finds in this file: it imports the file to serve it, then runs it as ``__main__``
for each page a session opens."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import streamlit as st

if __name__ == "__main__":  # a script run (the end of the file): the pages' modules, which the
    # server's own import of this file goes without (their caches are made in a run)
    from threadpoolctl import threadpool_limits

    from app_support.cache import example_one, home_captions, warm_server
    from app_support.captions.learn import home_caption
    from app_support.choices import KERNEL_CHOICES, MAX_SHARE
    from app_support.lessons import (
        EXAMPLE_INLIERS,
        HOME_H,
        HOME_MAX_OUTLIERS,
        HOME_OUTLIERS,
        HOME_ZOOM,
        X0,
    )
    from app_support.live_lesson.mount import FIGURE_SWITCH, example_live, example_outliers
    from app_support.live_lesson.payload import example_payload
    from app_support.present import LEGEND_BELOW, controls, notes, presenting, setup, sized
    from app_support.widgets import url
    from momkde_core.plots import density_1d_figure


@st.cache_resource
def one_blas_thread() -> None:
    """One BLAS thread per call, once per server process: the pages' fits are small (n of a
    few thousand), and OpenBLAS's threads waiting for each other on busy cores multiplied the
    CPU each page run cost the server under concurrent sessions (benchmarks/load_test.py;
    docs/benchmarks.md, "The app under load"). Large scoring still uses every core: the
    engine tiles it over its own threads."""
    threadpool_limits(limits=1, user_api="blas")


@st.cache_resource
def warm_pages() -> threading.Thread:
    """The pages' opening computations, then Explore's views one move away from its opening
    one, computed into the caches once per server process by a background thread
    (:func:`app_support.cache.warm_server`), so that a class's first visits and first moves
    draw from the cache instead of waiting for the fits and the robust bandwidth search."""
    thread = threading.Thread(
        target=warm_server, args=(MAX_SHARE, KERNEL_CHOICES), name="momkde-warm", daemon=True
    )
    thread.start()
    return thread


#: The pages after Home, by URL path: each one's script, title and icon. The server answers
#: these paths itself (:func:`page_routes`), so the list is kept apart from ``st.Page``,
#: which only a script run can build.
PAGE_FILES = {
    "explore": ("app_pages/explore.py", "Explore", ":material/tune:"),
    "sweep": ("app_pages/sweep.py", "Contamination sweep", ":material/show_chart:"),
    "your_data": ("app_pages/your_data.py", "Your data", ":material/upload_file:"),
    "real_data": ("app_pages/real_data.py", "Real data", ":material/dataset:"),
    "learn": ("app_pages/learn.py", "Learn", ":material/school:"),
}


def home() -> None:
    """What a KDE is, why outliers make bumps, how the median removes them: one live figure."""
    st.title("Robust density estimation with the median of means")
    if not presenting():
        st.markdown(
            "A **kernel density estimate** (KDE) puts a small bump of width *h* on every data "
            "point and averages them. It is a mean, so every point counts: a cluster of "
            "**outliers** grows its own bump. **MoM-KDE** splits the sample at random into *S* "
            "blocks, builds one KDE per block and takes their pointwise **median**. When the "
            "outliers sit in fewer than half of the blocks (guaranteed when S > 2|O|), the "
            "median ignores them."
        )
    if st.query_params.get(FIGURE_SWITCH) != "plotly":  # (plotly: the server's figures)
        _home_live()
    else:
        _home_plotly()
    if not presenting():
        st.subheader("Pages")
        for page in PAGES.values():
            st.page_link(page)


#: Home's |O|: its key (and the URL's) and its slider's label.
OUTLIERS_KEY = "o"
OUTLIERS_LABEL = "Number of outliers |O| (uniform on [-3, 3]; inliers uniform on [-1, 1])"


def _home_live() -> None:
    """Home's two panels and their caption in the browser: its |O| slider redraws them and
    shows the caption of that |O| (computed here for every |O|) with no server run."""
    n_outliers = example_outliers(OUTLIERS_KEY, HOME_OUTLIERS, HOME_MAX_OUTLIERS)
    captions = home_captions(EXAMPLE_INLIERS, HOME_MAX_OUTLIERS, HOME_H, X0, 0)
    example_live(
        example_payload(
            EXAMPLE_INLIERS,
            n_outliers,
            HOME_MAX_OUTLIERS,
            HOME_H,
            0,
            HOME_ZOOM,
            OUTLIERS_LABEL,
            captions,
        ),
        OUTLIERS_KEY,
    )


def _home_plotly() -> None:
    """Home's two panels as Plotly figures (``?fig=plotly``: zoom, hover), its slider a
    Streamlit one."""
    n_outliers = controls(st.container()).slider(
        OUTLIERS_LABEL, 0, HOME_MAX_OUTLIERS, HOME_OUTLIERS, **url(OUTLIERS_KEY)
    )
    ex = example_one(EXAMPLE_INLIERS, n_outliers, HOME_H, X0, 0, 2 * n_outliers + 1)
    full, zoom = st.columns(2)
    for place, title, y_max, key in (
        (full, "**The whole density**", None, "home_figure"),
        (zoom, "**Zoom on the tails (×10)**: the outliers' bumps", HOME_ZOOM, "home_zoom"),
    ):
        place.markdown(title)
        place.plotly_chart(
            sized(
                density_1d_figure(
                    ex["xs"], ex["curves"], ex["X"][:, 0], ex["is_outlier"], height=340, y_max=y_max
                ).update_layout(legend=LEGEND_BELOW, margin_t=10)  # nothing above the plot
            ),
            key=key,
            config={"displaylogo": False},
        )
    with notes("What the figures show"):
        st.caption(home_caption(ex, n_outliers, HOME_H))


def page_routes() -> list:
    """The server's answer to each page's own URL (``/explore``): Streamlit's ``index.html``
    with the server's root named in it (``window.__streamlit.BACKEND_BASE_URL``).

    Without it, Streamlit's frontend, opened on ``/explore``, takes the page's path for the
    server's and asks for ``/explore/_stcore/health`` and ``/explore/_stcore/host-config``
    first: two 404s, logged as errors in the browser's console, before it finds the server
    at the root (streamlit/streamlit#7074). Told the root, it asks there first. The root
    honours ``server.baseUrlPath``.

    Returns
    -------
    routes : list of starlette.routing.Route
        One route per page of :data:`PAGE_FILES`, for :class:`streamlit.App`.
    """
    from starlette.responses import HTMLResponse
    from starlette.routing import Route
    from streamlit import config, file_util

    base = config.get_option("server.baseUrlPath").strip("/")
    root = f"/{base}" if base else ""
    index = (Path(file_util.get_static_dir()) / "index.html").read_text(encoding="utf-8")
    told = (
        "<script>window.__streamlit = "
        f"{{BACKEND_BASE_URL: window.location.origin + {json.dumps(root + '/')}}}</script>"
    )
    html = index.replace("<head>", "<head>" + told, 1)

    async def index_page(request) -> HTMLResponse:
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})

    return [Route(f"{root}/{path}", index_page, methods=["GET"]) for path in PAGE_FILES]


FAVICON = (
    Path(__file__).resolve().parent / "assets" / "favicon.png"
)  # local: a material icon favicon comes from a CDN
if __name__ == "__main__":  # a script run: Streamlit runs this file as __main__ each time
    one_blas_thread()
    warm_pages()
    PAGES = {
        path: st.Page(script, title=title, icon=icon, url_path=path)
        for path, (script, title, icon) in PAGE_FILES.items()
    }
    setup("MoM-KDE explorer", FAVICON)
    navigation = st.navigation(
        [st.Page(home, title="Home", icon=":material/home:", default=True), *PAGES.values()]
    )
    navigation.run()
else:  # ``streamlit run app.py`` finds this app and imports the file to serve it (uvicorn)
    app = st.App(__file__, routes=page_routes())
