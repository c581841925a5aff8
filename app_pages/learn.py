"""Learn: the paper's Example 1 made interactive, MoM-KDE's two uses (a curve and a screen),
and the cost of each estimator as n grows."""

from __future__ import annotations

import math

import numpy as np
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
from app_support.captions.learn import error_caption, x0_caption
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
    SCREEN_INLIERS,
    SCREEN_OPENING,
    SCREEN_RATIO,
    SCREEN_SEED,
    X0,
)
from app_support.median_figures import STEPS, construction_figure
from app_support.present import LEGEND_BELOW, beside, notes, presenting, sized
from app_support.results import RESULTS_DIR
from app_support.widgets import url, user_errors
from momkde_core import metrics
from momkde_core._engine._gram import GRAM_GRID_MIN_PAIRS
from momkde_core.methods import method_label
from momkde_core.plots import (
    density_1d_figure,
    error_vs_blocks_figure,
    timing_figure,
    timing_slopes,
)

#: Labels of vertical lines sit above the plot area (in its top margin), where no curve goes.
ABOVE_PLOT = dict(y=1.0, yref="paper", yanchor="bottom")
#: The largest n whose n x n Gram matrix RKDE and SPKDE compute exactly; beyond it, in 1-D,
#: a grid convolution makes each of their products O(n) (docs/guide/performance.md).
EXACT_GRAM_MAX = math.isqrt(GRAM_GRID_MIN_PAIRS)
#: The sizes timed: doubling from 1,000 (smaller, the estimators' costs are the size of the
#: timer's noise) up to the exact Gram path's end, where the paper's O(n²) is what runs.
TIMED_SIZES = (1000, 2000, 4000, EXACT_GRAM_MAX)
#: The methods with a learning step; the KDE's and MoM-KDE's fit only store (and shuffle) rows.
LEARNING = ("rkde", "spkde", "screened_kde")
#: The evaluation points of the timing.
N_EVAL = 1000


def when_it_helps_table(js: pd.DataFrame) -> pd.DataFrame:
    """The table of measured JS as the page shows it.

    Parameters
    ----------
    js : DataFrame
        Columns ``scheme, ratio, kde, mom_kde, kde_robust`` (:func:`~app_support.lessons.measured_js`).

    Returns
    -------
    table : DataFrame
        One row per scheme, one column per ratio: "KDE → MoM-KDE", with the KDE with the
        robust h in brackets where it was measured.
    """
    cells = js.assign(
        cell=[
            f"{r.kde:.0f} → {r.mom_kde:.0f}"
            + (f" ({r.kde_robust:.0f})" if pd.notna(r.kde_robust) else "")
            for r in js.itertuples()
        ],
        column=[f"ratio {ratio:g}" for ratio in js["ratio"]],
    )
    table = cells.pivot(index="scheme", columns="column", values="cell")
    table = table.reindex(index=js["scheme"].unique(), columns=cells["column"].unique())
    return table.rename_axis(index=None, columns=None)


def gain_range(js: pd.DataFrame) -> str:
    """How many times lower MoM-KDE's JS is than the KDE's where it helps, least and most,
    from the values rounded as :func:`when_it_helps_table` shows them.

    Parameters
    ----------
    js : DataFrame
        Columns ``scheme, ratio, kde, mom_kde`` (:func:`~app_support.lessons.measured_js`).

    Returns
    -------
    text : str
        "2.3x lower JS on (a) uniform at ratio 0.05 up to 18x on (b) ... at ratio 0.2", over
        the schemes where MoM-KDE's JS is the lower at every ratio measured.
    """
    js = js.assign(kde=js["kde"].round(), mom_kde=js["mom_kde"].round())  # as the table shows
    helps = js.groupby("scheme").filter(lambda rows: (rows["mom_kde"] < rows["kde"]).all())
    gain = helps["kde"] / helps["mom_kde"]
    low, high = helps.loc[gain.idxmin()], helps.loc[gain.idxmax()]
    return (
        f"{gain.min():.2g}x lower JS on {low['scheme']} at ratio {low['ratio']:g} up to "
        f"{gain.max():.2g}x on {high['scheme']} at ratio {high['ratio']:g}"
    )


def screen_caption(view: dict[str, object]) -> str:
    """What the curve-and-screen figure shows.

    Parameters
    ----------
    view : dict
        What :func:`~app_support.lessons.curve_and_screen` returns.

    Returns
    -------
    caption : str
        Each curve's JS to the truth, the rows the screen set aside and how many of them are
        outliers, and which use is closer here, with the reason when the figure shows it.
    """
    xs, curves, h = view["xs"], view["curves"], view["h"]
    js = {
        m: 1000 * metrics.js_divergence(curves[m], curves["truth"], xs[1] - xs[0])
        for m in ("mom_kde", "screened_kde")
    }
    aside, is_outlier = view["set_aside"], view["is_outlier"]
    caught, n_outliers = int(np.sum(aside & is_outlier)), int(is_outlier.sum())
    text = (
        f"JS to the true density (dashed) × 1000: MoM-KDE {js['mom_kde']:.1f}, screened KDE "
        f"{js['screened_kde']:.1f}. The screen set aside {int(aside.sum())} of the {len(aside)} rows "
        f"(purple ticks), {caught} of them outliers, of the {n_outliers} in the sample (red ticks). "
    )
    if js["screened_kde"] < js["mom_kde"] and 2 * caught >= n_outliers:
        narrower = (
            f", narrower than the median's robust h = {h['mom_kde']:.2f}"
            if h["screened_kde"] < h["mom_kde"]
            else ""
        )
        return text + (
            "The screened KDE is closer: with the outliers set aside, it is a plain KDE of the "
            f"rows kept, with its own cross-validated h = {h['screened_kde']:.2f}{narrower}."
        )
    if js["screened_kde"] > js["mom_kde"] and caught < n_outliers:
        return text + (
            f"MoM-KDE's curve is closer: the screen kept {n_outliers - caught} outliers, and the "
            "KDE fitted on the rows kept has their bump, which the median ignores."
        )
    closer = "closer" if js["screened_kde"] < js["mom_kde"] else "not closer"
    return text + f"The screened KDE is {closer} than MoM-KDE's curve here."


def timing_caption(times: pd.DataFrame) -> str:
    """What the timing figure shows.

    Parameters
    ----------
    times : DataFrame
        What :func:`~app_support.cache.measure_times` returns.

    Returns
    -------
    caption : str
        The fit slopes of the methods that learn, the fit time of those that do not, the
        evaluation slopes, and why the sizes stop where they do.
    """
    fit = timing_slopes(times[times["method"].isin(LEARNING)])
    evaluate = timing_slopes(times, "evaluate")
    still = times[~times["method"].isin(LEARNING) & (times["phase"] == "fit")]
    return (
        f"Seconds against n on log-log axes (solid: fit, dotted: evaluation at {N_EVAL:,} points; "
        "grey: slopes 1 and 2), each the least of a few runs. Measured fit slopes here: "
        + ", ".join(f"{method_label(m)} {v:.1f}" for m, v in fit.items())
        + ". RKDE and SPKDE cost O(n_iter · n²) in theory: a slope of 2 if their number of "
        "iterations does not change with n; a slope away from 2 says it does, or that costs other "
        "than the n² products still weigh. The screened KDE's fit includes its screen's choice of "
        "the robust h (MoM-KDE's default); every method uses Scott's h here. "
        + " and ".join(method_label(m) for m in still["method"].unique())
        + f" learn nothing: their fit takes at most {1000 * still['seconds'].max():.1f} ms at every n, "
        "so its slope is noise and not given. Evaluation slopes (O(n) a point: 1 in theory): "
        + ", ".join(f"{method_label(m)} {v:.1f}" for m, v in evaluate.items())
        + f". The sizes stop at n = {EXACT_GRAM_MAX:,}, the largest whose n × n Gram matrix RKDE "
        "and SPKDE compute exactly; beyond it, in 1-D, a grid convolution makes each of their "
        "products O(n)."
    )


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
    """The construction's step control and its frame: a step reruns this part alone."""
    step = (
        st.segmented_control(
            "Step",
            list(STEPS),
            default="sample",
            **url(MEDIAN.step),
            help="Each step adds one stage of MoM-KDE to the same sample: "
            + "; ".join(STEPS.values())
            + ".",
        )
        or "sample"
    )
    steps = construction(*BUILD)
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
