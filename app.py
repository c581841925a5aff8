"""The momkde app: page configuration, navigation over every page, and the Home page."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from app_support.compute import example_one
from app_support.widgets import url
from momkde_core.plots import density_1d_figure

PAGES = {
    "explore": st.Page("app_pages/explore.py", title="Explore", icon=":material/tune:", url_path="explore"),
    "sweep": st.Page("app_pages/sweep.py", title="Contamination sweep", icon=":material/show_chart:", url_path="sweep"),
    "your_data": st.Page("app_pages/your_data.py", title="Your data", icon=":material/upload_file:", url_path="your_data"),
    "real_data": st.Page("app_pages/real_data.py", title="Real data", icon=":material/dataset:", url_path="real_data"),
    "learn": st.Page("app_pages/learn.py", title="Learn", icon=":material/school:", url_path="learn"),
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
    n_outliers = st.slider("Number of outliers |O| (uniform on [-3, 3]; inliers uniform on [-1, 1])", 0, 20, 6,
                           **url("o"))
    ex = example_one(200, n_outliers, 0.4, 1, 2.0, 0, 2 * n_outliers + 1)
    st.plotly_chart(density_1d_figure(ex["xs"], ex["curves"], ex["X"][:, 0], ex["is_outlier"], height=380),
                    key="home_figure", config={"displaylogo": False})
    st.caption(f"Every outlier (red tick) gives the KDE (orange) a bump; MoM-KDE (pink, S = 2|O| + 1 = "
               f"{2 * n_outliers + 1} blocks) is flat at 0 outside [−1, 1], like the true density (dashed). "
               "The Learn page explains why.")
    st.subheader("Pages")
    for page in PAGES.values():
        st.page_link(page)


FAVICON = Path(__file__).resolve().parent / "assets" / "favicon.png"  # local: a material icon favicon comes from a CDN
st.set_page_config(page_title="MoM-KDE explorer", page_icon=str(FAVICON), layout="wide")
navigation = st.navigation([st.Page(home, title="Home", icon=":material/home:", default=True), *PAGES.values()])
navigation.run()
