"""The momkde app: page configuration, navigation over every page, and the Home page."""

from __future__ import annotations

import streamlit as st

from app_support.compute import fit_all, plot_grid, select_bandwidth, synthetic_sample
from app_support.compute import Settings
from app_support.widgets import url
from momkde_core.plots import density_1d_figure

PAGES = {
    "explore": st.Page("pages/explore.py", title="Explore", icon="🔎", url_path="explore"),
    "sweep": st.Page("pages/sweep.py", title="Contamination sweep", icon="📉", url_path="sweep"),
    "your_data": st.Page("pages/your_data.py", title="Your data", icon="📂", url_path="your-data"),
    "real_data": st.Page("pages/real_data.py", title="Real data", icon="🧪", url_path="real-data"),
    "learn": st.Page("pages/learn.py", title="Learn", icon="🎓", url_path="learn"),
}


def home() -> None:
    """What a KDE is, why outliers make bumps, how the median removes them: one live figure."""
    st.title("Robust density estimation with the median of means")
    st.markdown(
        "A **kernel density estimate** (KDE) puts a small bump of width *h* on every data point and "
        "averages them. It is a mean, so every point counts: a cluster of **outliers** grows its own "
        "bump. **MoM-KDE** splits the sample at random into *S* blocks, builds one KDE per block and "
        "takes their pointwise **median**. When the outliers sit in fewer than half of the blocks "
        "(guaranteed when S > 2|O|), the median ignores them."
    )
    ratio = st.slider("Share of outliers (a thin cluster at x = 3)", 0.0, 0.3, 0.1, 0.05, **url("ratio"))
    data = synthetic_sample("thin_gaussian", 500, ratio, 1, 0)
    settings = Settings(bandwidth="cv", kernel="gaussian", n_blocks=2 * data.n_outliers + 1, contamination=0.1, seed=0)
    h = select_bandwidth(data.X, "cv", "gaussian", 0)
    grid = plot_grid(data.X, h)
    results, _ = fit_all(["kde", "mom_kde"], data.X, grid.axes, h, settings)
    curves = {"truth": data.true_pdf(grid.points), **{m: r["grid"] for m, r in results.items()}}
    st.plotly_chart(density_1d_figure(grid.axes[0], curves, data.X[:, 0], data.is_outlier, height=380),
                    key="home_figure", config={"displaylogo": False})
    st.caption(f"KDE (orange) grows a bump at x = 3 where only outliers are; MoM-KDE (pink, S = {settings.n_blocks}) "
               "stays close to the true density (dashed).")
    st.subheader("Pages")
    for page in PAGES.values():
        st.page_link(page)


st.set_page_config(page_title="MoM-KDE explorer", page_icon="📈", layout="wide")
navigation = st.navigation([st.Page(home, title="Home", icon="🏠", default=True), *PAGES.values()])
navigation.run()
