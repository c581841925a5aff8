"""Contamination sweep: the paper's experiment live, JS / KL / AUC against the outlier ratio,
with the protocol stated and each figure's caption computed from its curves."""

from __future__ import annotations

import streamlit as st

from app_support.cache import SWEEP_OPENING, run_sweep, sweep_options, sweep_ratios
from app_support.captions.coinciding import coinciding_lines
from app_support.captions.density import WHY
from app_support.captions.sweep import below_chance, sweep_verdicts
from app_support.choices import SCHEME_LABELS
from app_support.results import SWEEP_DEFAULTS, SWEEP_METHODS, runner_methods
from app_support.widgets import methods_select, scheme_select, url, url_choice, user_errors
from momkde_core.experiments import CONTAMINATION_GUESS, SYNTHETIC_SCHEMES
from momkde_core.io import to_csv_text
from momkde_core.plots import metric_vs_ratio_figure

FIGURES = {
    "js": "Jensen-Shannon divergence to the true density (lower is better).",
    "kl_fhat_f": "KL(f̂ ‖ f): mass the estimate puts where the true density has little, e.g. on outliers.",
    "kl_f_fhat": "KL(f ‖ f̂): mass of the true density the estimate misses.",
    "auc": "AUC of the density as an outlier score (higher is better; dotted: chance).",
}
#: The guide S > 2|O| and the auto S: why MoM-KDE depends on the share it is told.
GUIDE = (
    "MoM-KDE takes S = 2⌈εn⌉+1 from the stated share ε, so it meets the guide S > 2|O| "
    "where ε is at least the true ratio."
)
#: Why a scheme favours or defeats MoM-KDE: the mechanism only; who wins at which ratio is
#: counted from the curves (the box and each figure's caption).
SCHEME_WHY = {
    "uniform": "Uniform outliers are spread out: each block holds few, so the median drops them "
    "while S > 2|O|. " + GUIDE,
    "regular_gaussian": "Gaussian outliers between the modes form a bump, which the median drops "
    "while fewer than half of the blocks hold an outlier (S > 2|O|). " + GUIDE,
    "thin_gaussian": "A thin spike captures the cross-validated h (it shrinks to fit the spike): the "
    "methods sharing that h cannot help, while MoM-KDE and the KDE with the robust h choose "
    "an h the spike cannot capture. " + GUIDE,
    "adversarial": WHY["adversarial"].format(share=0.39),
}
#: Why every method's AUC falls below chance on a synthetic scheme.
BELOW_CHANCE_WHY = (
    "the outliers are denser than the inliers (a spike), so a density ranks them as normal"
)
PROTOCOLS = {"honest": "honest", "paper": "paper"}
SHARES = {"guess": f"guess {CONTAMINATION_GUESS:g}", "true": "true ratio"}

st.title("Contamination sweep")
side = st.sidebar
scheme = scheme_select(side, SYNTHETIC_SCHEMES)
OPEN = SWEEP_OPENING  # (the warm-up computes the page at these settings)
dim = side.segmented_control("Dimension", [1, 2], **url_choice("dim", OPEN["dim"])) or OPEN["dim"]
step = (
    side.segmented_control(
        "Ratio step",
        [0.1, 0.05],
        **url_choice("step", OPEN["step"]),
        help="0.05 is the paper's grid (twice the work).",
    )
    or OPEN["step"]
)
n_inliers = side.select_slider("Inliers", [200, 500, 1000], value=OPEN["n_inliers"], **url("n"))
reps = side.slider("Repetitions", 1, 20, OPEN["reps"], **url("reps"), help="The paper uses 10.")
protocol = (
    side.segmented_control(
        "Protocol",
        list(PROTOCOLS),
        **url_choice("proto", OPEN["protocol"]),
        help="honest: what a user can do (h by CV on the contaminated sample). "
        "paper: h by CV on the clean inliers and SPKDE told the true ratio "
        "(knowledge a user lacks).",
    )
    or OPEN["protocol"]
)
share = (
    side.segmented_control(
        "Share stated to SPKDE, the auto methods and the screened KDE",
        list(SHARES),
        format_func=SHARES.get,
        **url_choice("share", OPEN["share"]),
    )
    or OPEN["share"]
)
methods = methods_select(
    side,
    SWEEP_METHODS,
    default=SWEEP_DEFAULTS,
    help="MoM-KDE: S = 2⌈εn⌉+1 and the robust h, the library's defaults. "
    "MoM-KDE (S rule): a held-out S rule with the CV h. The oracle tries 20 "
    "values of S and keeps the best JS (it needs the true density, as in the paper). "
    "Screened KDE: MoM-KDE as a screen, then a KDE with its own CV h "
    "on the rows kept.",
)
seed = int(side.number_input("Seed", 0, 10_000, OPEN["seed"], **url("seed")))

stated = (
    "the true ratio"
    if share == "true" or protocol == "paper"
    else f"a guessed share of {CONTAMINATION_GUESS:g}"
)
st.markdown(
    f"The paper's experiment, live: each estimator's error against the true density as the "
    f"outlier ratio grows, {reps} sample(s) of {n_inliers} inliers per ratio."
)
with st.expander(f"Protocol ({protocol}) and how the captions judge a win"):
    st.markdown(
        f"The paper's experiment, live, under the **{protocol}** protocol: for each outlier "
        f"ratio, draw {reps} contaminated sample(s) of {n_inliers} inliers, fit every estimator "
        "and score it against the true density. "
        + (
            "The bandwidth is cross-validated on the contaminated sample (what a user can do) "
            "and shared by KDE, MoM-KDE (S rule), RKDE and SPKDE; the auto methods choose the "
            "robust h themselves. "
            if protocol == "honest"
            else "The bandwidth is cross-validated on the clean inliers only (an oracle, as in "
            "the paper's code). "
        )
        + (
            "The screened KDE cross-validates its own h on the rows its screen keeps. "
            if "screened_kde" in methods
            else ""
        )
        + f"SPKDE and the auto methods{' and the screened KDE' if 'screened_kde' in methods else ''} "
        f"are told {stated}. Lines: means over the repetitions; bands: ± one standard error of "
        "the mean (se). The captions call a gap between two lines a win only beyond the "
        "standard error of the gap, √(se₁² + se₂²): within it, a tie."
    )
with user_errors():
    if not methods:
        raise ValueError("choose at least one method")
    results = run_sweep(
        "synthetic",
        [scheme],
        sweep_ratios(step),
        reps,
        seed,
        runner_methods(methods),
        **sweep_options(dim, n_inliers, protocol, share),
    )
    challenger = next((m for m in ("mom_kde", "mom_kde_rule") if m in set(results["method"])), None)
    verdicts = {metric: sweep_verdicts(results, metric, challenger) for metric in FIGURES}
    box = [verdicts[m].versus_kde for m in ("js", "auc") if verdicts[m].versus_kde]
    st.info(" ".join([f"{SCHEME_LABELS[scheme]}.", *box]), icon=":material/lightbulb:")
    with st.expander("Why this scheme favours or defeats MoM-KDE"):
        st.markdown(SCHEME_WHY[scheme])
    explained: set[str] = set()  # each mechanism under the first figure that calls on it
    cols = st.columns(2)
    for i, (metric, sentence) in enumerate(FIGURES.items()):
        with cols[i % 2]:
            coinciding = coinciding_lines(results, metric)
            st.plotly_chart(
                metric_vs_ratio_figure(results, metric, band="se", dashes=coinciding.dashes),
                key=f"sweep_{metric}",
                config={"displaylogo": False},
            )
            said = verdicts[metric]
            # the caption: what the figure shows; the rest behind the expander under it
            st.caption(" ".join(t for t in (sentence, said.versus_kde, str(coinciding)) if t))
            more = [said.rivals, *said.jumps]
            more += [m for m in said.mechanisms if m not in explained]
            explained.update(said.mechanisms)
            if metric == "auc":
                more.append(below_chance(results, BELOW_CHANCE_WHY))
            if any(more):
                with st.expander("Rivals, jumps and chance on this figure"):
                    st.caption(" ".join(t for t in more if t))
    st.download_button(
        "Download the results (CSV)",
        to_csv_text(results),
        file_name=f"momkde_sweep_{scheme}_{dim}d.csv",
        mime="text/csv",
        key="download",
    )
