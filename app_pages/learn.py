"""Learn: the paper's Example 1 made interactive, and the cost of each estimator as n grows."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_support.compute import example_one, measure_times
from app_support.widgets import url, user_errors
from momkde_core.plots import density_1d_figure, error_vs_blocks_figure, timing_figure

st.title("Learn: why the median removes outliers")

st.header("Example 1 of the paper")
st.markdown(
    "Inliers are uniform on [−1, 1], outliers uniform on [−3, 3], the kernel is the uniform (tophat) "
    "one and we look at x₀ = 2, where the true density is 0. A block KDE is non-zero at x₀ only if "
    "the block holds an outlier within h of x₀. With S > 2|O| blocks, more than half of the blocks "
    "hold no outlier at all, so the median at x₀ is exactly 0: MoM-KDE makes **no error**, "
    "while the KDE errs as soon as one outlier falls within h of x₀ (probability $1 - (1 - h/3)^{|O|}$)."
)
controls, figure = st.columns([1, 3])
with controls:
    n_outliers = st.slider("Outliers |O|", 0, 20, 10, **url("o"))  # seed 0: an outlier near x0
    h = st.slider("Bandwidth h", 0.05, 0.95, 0.5, 0.05, **url("h"))
    blocks = st.slider("S, number of blocks", 1, 60, 11, **url("S"))
    seed = int(st.number_input("Seed", 0, 10_000, 0, **url("seed")))
with user_errors():
    ex = example_one(200, n_outliers, h, 60, 2.0, seed, blocks)
    with figure:
        st.plotly_chart(density_1d_figure(ex["xs"], ex["curves"], ex["X"][:, 0], ex["is_outlier"], height=340),
                        key="example_density", config={"displaylogo": False})
        st.caption(f"With S = {blocks}, {ex['n_blocks_with_outlier_near_x0']} block(s) hold an outlier within h "
                   f"of x₀ = 2; the median is non-zero there only if that is more than half of the {blocks} blocks.")
        st.plotly_chart(error_vs_blocks_figure(ex["blocks"], ex["errors"], threshold=2 * n_outliers),
                        key="example_error", config={"displaylogo": False})
        st.caption("Error at x₀ against S: MoM-KDE's drops to exactly 0 by the time S passes 2|O| (dotted line), "
                   "the KDE's does not depend on S.")

st.header("What it costs")
table_col, timing_col = st.columns([2, 3])
with table_col:
    st.markdown("Theoretical complexity (paper, table 1), for n points:")
    st.table(pd.DataFrame(
        {"Learning": ["—", "O(n_iter · n²)", "O(n_iter · n²)", "—"],
         "Evaluation": ["O(n)"] * 4,
         "Iterative": ["no", "yes", "yes", "no"]},
        index=["KDE", "RKDE", "SPKDE", "MoM-KDE"]))
    st.caption("MoM-KDE needs no learning step: its fit only shuffles the indices into blocks.")


@st.fragment
def timings() -> None:
    """Measure on demand (a few seconds), in a fragment so the rest of the page is not rerun."""
    largest = st.select_slider("Largest n", [500, 1000, 2000, 4000], value=1000, **url("nmax"))
    sizes = tuple(n for n in (125, 250, 500, 1000, 2000, 4000) if n <= largest)
    if st.button("Measure on this machine", key="measure") or st.session_state.get(f"measured_{largest}"):
        bar = st.progress(0.0, text="Timing fit and evaluation…")
        times = measure_times(sizes, 1000, 0, _progress=lambda f: bar.progress(f, text="Timing fit and evaluation…"))
        bar.empty()
        st.session_state[f"measured_{largest}"] = True
        st.plotly_chart(timing_figure(times), key="timing_figure", config={"displaylogo": False})
        st.caption("Seconds against n on log-log axes (solid: fit, dotted: evaluation at 1000 points): "
                   "a slope of 2 is the quadratic learning of RKDE and SPKDE.")


with timing_col:
    timings()
