"""Learn: the paper's Example 1 made interactive, MoM-KDE's two uses (a curve and a screen),
and the cost of each estimator as n grows."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_support.cache import (
    clean_cost,
    construction,
    curve_and_screen,
    example_one,
    example_one_errors,
    measure_times,
    measured_js,
)
from app_support.captions.learn import (
    error_caption,
    gain_range,
    screen_caption,
    timing_caption,
    x0_caption,
)
from app_support.captions.median import step_caption
from app_support.choices import SCHEME_CODES, SCHEME_LABELS
from app_support.keys import LEARN, MEDIAN
from app_support.lessons import (
    BUILD,
    CLEAN_JS_FILE,
    EXAMPLE_INLIERS,
    LEARN_OPENING,
    MAX_BLOCKS,
    MEASURED_JS_FILE,
    N_EVAL,
    SCREEN_INLIERS,
    SCREEN_OPENING,
    SCREEN_RATIO,
    SCREEN_SEED,
    TIMED_SIZES,
    X0,
    when_it_helps_table,
)
from app_support.live_lesson.mount import FIGURE_SWITCH, held_step, steps_live
from app_support.live_lesson.payload import steps_payload
from app_support.median_figures import STEPS, construction_figure
from app_support.present import LEGEND_BELOW, beside, notes, presenting, sized
from app_support.results import RESULTS_DIR
from app_support.widgets import url, url_choice, user_errors
from momkde_core.plots import (
    density_1d_figure,
    error_vs_blocks_figure,
    timing_figure,
)

#: Labels of vertical lines sit above the plot area (in its top margin), where no curve goes.
ABOVE_PLOT = dict(y=1.0, yref="paper", yanchor="bottom")
st.title("Learn: why the median removes outliers")

st.header("Example 1 of the paper")
if not presenting():
    st.markdown(
        "Inliers are uniform on [−1, 1], outliers uniform on [−3, 3], the kernel is the uniform "
        "(tophat) one and we look at x₀ = 2, where the true density is 0. A block KDE is non-zero "
        "at x₀ only if the block holds an outlier within h of x₀. With S > 2|O| blocks, more than "
        "half of the blocks hold no outlier at all, so the median at x₀ is exactly 0: MoM-KDE "
        "makes **no error**, while the KDE errs as soon as one outlier falls within h of x₀ "
        "(probability 1 − (1 − h/3) to the power |O|)."
    )
controls_col, figure = beside()
with controls_col:
    n_outliers = st.slider("Outliers |O|", 0, 20, LEARN_OPENING[0], **url("o"))
    h = st.slider("Bandwidth h", 0.05, 0.95, LEARN_OPENING[1], 0.05, **url("h"))
    blocks = st.slider("S, number of blocks", 1, MAX_BLOCKS, LEARN_OPENING[2], **url("S"))
    seed = int(st.number_input("Seed", 0, 10_000, LEARN_OPENING[3], **url("seed")))
with user_errors(), figure:
    ex = example_one(EXAMPLE_INLIERS, n_outliers, h, X0, seed, blocks)
    st.plotly_chart(
        sized(
            density_1d_figure(ex["xs"], ex["curves"], ex["X"][:, 0], ex["is_outlier"], height=320)
            .update_layout(legend=LEGEND_BELOW)
            .add_vline(
                x=X0,
                line=dict(color="#1F2430", dash="dot", width=1.5),
                annotation=dict(text=f"x₀ = {X0:g}", xanchor="center", **ABOVE_PLOT),
            )
        ),
        key="example_density",
        config={"displaylogo": False},
    )
    with notes():
        st.caption(x0_caption(ex, blocks, X0))
    errors = example_one_errors(EXAMPLE_INLIERS, n_outliers, h, MAX_BLOCKS, X0, seed)
    st.plotly_chart(
        sized(
            error_vs_blocks_figure(
                errors["blocks"],
                {"kde": errors["kde"], "mom_kde": errors["mom_kde"]},
                threshold=2 * n_outliers,
            )
            .update_layout(legend=LEGEND_BELOW)
            .update_annotations(xanchor="center", **ABOVE_PLOT)  # its S = 2|O| label
        ),
        key="example_error",
        config={"displaylogo": False},
    )
    with notes():
        st.caption(error_caption(errors, n_outliers))

st.header("MoM-KDE built step by step")
if not presenting():
    st.markdown(
        f"One sample, {BUILD[0]} inliers and a cluster of {BUILD[1]} outliers at "
        f"{BUILD[2]:g}, and S = {BUILD[3]} blocks: step through the construction. Every frame "
        "is computed from the same sample and the same random split."
    )


@st.fragment
def construction_steps() -> None:
    """The construction's step control and its frame: drawn in the browser (a step redraws
    the frame and its caption with no server run), or with Plotly (``?fig=plotly``: a step
    reruns this part alone)."""
    steps = construction(*BUILD)
    if st.query_params.get(FIGURE_SWITCH) != "plotly":
        step = held_step(MEDIAN.step, "sample")
        steps_live(
            steps_payload(steps, step, {k: step_caption(steps, k) for k in STEPS}), MEDIAN.step
        )
        return
    step = (
        st.segmented_control(
            "Step",
            list(STEPS),
            **url_choice(MEDIAN.step, "sample"),
            help="Each step adds one stage of MoM-KDE to the same sample: "
            + "; ".join(STEPS.values())
            + ".",
        )
        or "sample"
    )
    st.plotly_chart(
        sized(construction_figure(steps, step, height=360)),
        key="construction_figure",
        config={"displaylogo": False},
    )
    with notes():
        st.caption(step_caption(steps, step))


construction_steps()

st.header("When does MoM-KDE help?")
MEASURED_JS = measured_js(RESULTS_DIR / MEASURED_JS_FILE)
if not presenting():
    st.markdown(
        "Measured on the paper's four schemes (JS to the true density × 1000, lower is better; KDE with the "
        "cross-validated h → MoM-KDE with its robust defaults, S = 2⌈εn⌉+1 and the robust h, ε = the true ratio; "
        "in brackets, the KDE with the robust h):"
    )
st.table(when_it_helps_table(MEASURED_JS))
with notes("When it helps, loses, costs and needs"):
    st.markdown(
        "- **It helps** when the outliers are a minority of every neighbourhood they sit in: spread out "
        "(uniform) or a cluster away from the inliers (b, c). Then fewer than half of the blocks hold an "
        "outlier near any point and the median ignores them: "
        + gain_range(MEASURED_JS)
        + " (the table above).\n"
        "- **It loses** when the outliers sit on an inlier mode (d): about 39 % of the blocks hold a spike "
        "point, so the median at the mode is a high quantile of the clean blocks. There the KDE with the robust "
        "h wins: the gain comes from the bandwidth, not from the median.\n"
        "- **It costs** on clean data: the median of S block KDEs is noisier than their mean, "
        + "{:.2g}-{:.2g}x the KDE's JS on the reproduction's four clean densities. And".format(
            *clean_cost(RESULTS_DIR / CLEAN_JS_FILE)
        )
        + " **no density** can flag outliers denser than the inliers (a spike on a mode, "
        "the digit 0 among digits): their AUC is below 0.5 whatever the estimator.\n"
        "- **It needs** the right S and h: S > 2|O| (too few blocks keep the bump) and an h a spike cannot "
        "capture (cross-validation shrinks h to fit the spike, and the median of spiky blocks is a needle)."
    )

st.header("MoM-KDE as a curve, MoM-KDE as a screen")
if not presenting():
    st.markdown(
        "The library uses MoM-KDE in two ways. **As a curve** (`MoMKDE`): the normalised median of "
        "the S block KDEs is the density. The median resists the outliers, but blocks of about "
        "1/(2ε) points need a wide bandwidth, which flattens the inliers' modes. **As a screen** "
        "(`ScreenedKDE`): MoM-KDE only says which rows to set aside, those where a KDE of all rows "
        "rises far above the median (the bumps outliers grow and the median does not follow); a "
        "plain KDE with its own cross-validated h is then fitted on the rows kept. It is as good as "
        "its screen: an outlier the screen keeps stays in the final KDE."
    )
screen_controls, screen_figure = beside()
with screen_controls:
    screen_scheme = st.selectbox(
        "Contamination scheme",
        [scheme for scheme in SCHEME_CODES if scheme != "none"],
        index=[s for s in SCHEME_CODES if s != "none"].index(SCREEN_OPENING),
        format_func=SCHEME_CODES.get,
        **url("screen"),
    )
    with notes("The sample"):
        st.caption(
            f"{SCHEME_LABELS[screen_scheme]}. {SCREEN_INLIERS} inliers and {SCREEN_RATIO:.0%} of "
            f"outliers in 1-D; both are told ε = {SCREEN_RATIO:g}, the true share, and keep the "
            "library's defaults (S auto and the robust h; the calibrated cut and the CV h)."
        )
with user_errors(), screen_figure:
    view = curve_and_screen(screen_scheme, SCREEN_INLIERS, SCREEN_RATIO, SCREEN_SEED)
    st.plotly_chart(
        sized(
            density_1d_figure(
                view["xs"],
                view["curves"],
                view["X"],
                view["is_outlier"],
                height=340,
                flagged=view["set_aside"],
            ).update_layout(legend=LEGEND_BELOW)
        ),
        key="screen_figure",
        config={"displaylogo": False},
    )
    with notes():
        st.caption(screen_caption(view))

st.header("What it costs")
table_col, timing_col = st.columns([1, 1])
with table_col:
    st.markdown("Theoretical complexity (paper, table 1), for n points:")
    st.table(
        pd.DataFrame(
            {
                "Learning": ["—", "O(n_iter · n²)", "O(n_iter · n²)", "—", "O(n²)"],
                "Evaluation": ["O(n)"] * 5,
                "Iterative": ["no", "yes", "yes", "no", "no"],
            },
            index=["KDE", "RKDE", "SPKDE", "MoM-KDE", "Screened KDE"],
        )
    )
    with notes("What the table says"):
        st.caption(
            "MoM-KDE needs no learning step: its fit only shuffles the indices into blocks. The screened "
            "KDE (not in the paper) is a MoM-KDE fit plus a KDE fit: it scores the n training points with "
            "MoM-KDE and with a pilot KDE (O(n) a point), then fits a KDE on the points kept. Choosing a "
            "bandwidth is not counted."
        )


@st.fragment
def timings() -> None:
    """Measure on demand, in a fragment so the rest of the page is not rerun."""
    largest = st.select_slider(
        "Largest n",
        TIMED_SIZES[2:],
        value=TIMED_SIZES[2],
        **url(LEARN.largest),
        help="The largest size takes the longest: the screened KDE's fit.",
    )
    sizes = tuple(n for n in TIMED_SIZES if n <= largest)
    if st.button("Measure on this machine", key=LEARN.measure) or st.session_state.get(
        LEARN.measured(largest)
    ):
        bar = st.progress(0.0, text="Timing fit and evaluation…")
        times = measure_times(
            sizes, N_EVAL, 0, progress=lambda f: bar.progress(f, text="Timing fit and evaluation…")
        )
        bar.empty()
        st.session_state[LEARN.measured(largest)] = True
        st.plotly_chart(
            sized(timing_figure(times)), key="timing_figure", config={"displaylogo": False}
        )
        with notes():
            st.caption(timing_caption(times))


with timing_col:
    timings()
