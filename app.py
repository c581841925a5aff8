"""The momkde app: page configuration, navigation over every page, and the Home page."""

from __future__ import annotations

import threading
from pathlib import Path

import streamlit as st
from threadpoolctl import threadpool_limits

from app_support.cache import example_one, warm_server
from app_support.captions.learn import home_caption
from app_support.choices import KERNEL_CHOICES, MAX_SHARE
from app_support.lessons import EXAMPLE_INLIERS, HOME_H, HOME_OUTLIERS, HOME_ZOOM, X0
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


one_blas_thread()


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


warm_pages()

PAGES = {
    "explore": st.Page(
        "app_pages/explore.py", title="Explore", icon=":material/tune:", url_path="explore"
    ),
    "sweep": st.Page(
        "app_pages/sweep.py",
        title="Contamination sweep",
        icon=":material/show_chart:",
        url_path="sweep",
    ),
    "your_data": st.Page(
        "app_pages/your_data.py",
        title="Your data",
        icon=":material/upload_file:",
        url_path="your_data",
    ),
    "real_data": st.Page(
        "app_pages/real_data.py", title="Real data", icon=":material/dataset:", url_path="real_data"
    ),
    "learn": st.Page(
        "app_pages/learn.py", title="Learn", icon=":material/school:", url_path="learn"
    ),
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
    n_outliers = controls(st.container()).slider(
        "Number of outliers |O| (uniform on [-3, 3]; inliers uniform on [-1, 1])",
        0,
        20,
        HOME_OUTLIERS,
        **url("o"),
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
    if not presenting():
        st.subheader("Pages")
        for page in PAGES.values():
            st.page_link(page)


FAVICON = (
    Path(__file__).resolve().parent / "assets" / "favicon.png"
)  # local: a material icon favicon comes from a CDN
setup("MoM-KDE explorer", FAVICON)
navigation = st.navigation(
    [st.Page(home, title="Home", icon=":material/home:", default=True), *PAGES.values()]
)
navigation.run()
