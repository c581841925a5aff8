"""Every sentence Your data, Real data and the Contamination sweep write from numbers, read back
and checked against the numbers it describes, over several views: counts and shares of
flagged rows against the download's flags, AUCs and "best" against AUCs recomputed from the
download's scores and the label, the ranking's counts against its table, the bars' counts,
a row's values against the file, the columns left out against their values, h and S against
the rows per block, and on the experiments' pages "best on average", "beats ... at k of m
ratios" and the stored results' counts against the tables the figures draw.

Numbers printed with d decimals are compared within half a unit of their last decimal (the
rounding of the text), never for exact equality with a float computed another way.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from momkde_core import metrics
from momkde_core.methods import DEFAULT_DETECTOR, method_label
from tests.app._apptest import (
    caption,
    density_figures,
    figures,
    open_app,
    read_download,
    upload,
    values,
)

PAGE = "app_pages/your_data.py"
#: The label column of the bundled sensor sample and its outliers' value.
SENSOR_LABEL, SENSOR_OUTLIER = "status", "glitch"


def _number(text: str) -> float:
    """A number as the captions write it: "1,200", "0.971", "10.0%" (as a share)."""
    text = text.replace(",", "")
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def _close(printed: str, value: float) -> bool:
    """``value`` rounds to ``printed`` (a number with its decimals, or a percentage): within
    half a unit of the last decimal written."""
    digits = printed.rstrip("%").replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    unit = 10.0**-decimals / (100 if printed.endswith("%") else 1)
    return abs(_number(printed) - value) <= unit / 2 + 1e-12


def _labels(at) -> dict[str, str]:
    """Method label -> method name, for the methods the page scored."""
    return {method_label(m): m for m in at.sidebar.selectbox(key="flag").options}


def _aucs(table: pd.DataFrame, methods: list[str], is_outlier: np.ndarray) -> dict[str, float]:
    """Each method's AUC recomputed from the download's scores against the label."""
    return {m: metrics.auc(table[f"score_{m}"].to_numpy(), is_outlier) for m in methods}


def _check_flag_share(at, table: pd.DataFrame, eps: float) -> None:
    """ "<label> flags k of n rows (p%)": k and p are the download's flags of that method."""
    labels = _labels(at)
    text = next(c.value for c in at.caption if re.match(r".+ flags [\d,]+ of [\d,]+ rows", c.value))
    label, k, n, share = re.match(
        r"(.+) flags ([\d,]+) of ([\d,]+) rows \(([\d.]+%)\)", text
    ).groups()
    flags = table[f"is_outlier_{labels[label]}"].astype(bool)
    assert _number(k) == flags.sum() and _number(n) == len(table)
    assert _close(share, flags.mean())
    assert f"ε = {eps:g}" in text
    assert labels[label] == at.sidebar.selectbox(key="flag").value  # the method that flags


def _check_auc_verdict(at, table: pd.DataFrame, is_outlier: np.ndarray) -> None:
    """ "A and B rank the outliers best (AUC x; the KDE y)": A and B are every method whose
    AUC, recomputed from the download, rounds to the highest; x and y are those AUCs."""
    labels = _labels(at)
    aucs = _aucs(table, list(labels.values()), is_outlier)
    text = next(c.value for c in at.caption if "the outliers best (AUC" in c.value)
    named, best = re.search(r"^(.+?) ranks? the outliers best \(AUC ([\d.]+)", text).groups()
    top = max(f"{v:.3f}" for v in aucs.values())
    expected = {method_label(m) for m, v in aucs.items() if f"{v:.3f}" == top}
    assert set(re.split(r", | and ", named)) == expected
    assert best == top
    if found := re.search(r"the KDE ([\d.]+)\)", text):
        assert _close(found.group(1), aucs["kde"])
    # the AUC table shows the same numbers
    (shown,) = [t.value for t in at.table if "AUC" in t.value.index]
    for label, value in shown.loc["AUC"].items():
        assert abs(value - aucs[labels[label]]) < 1e-9  # the same scores, the same formula


def _check_banner(at, table: pd.DataFrame, is_outlier: np.ndarray) -> None:
    """The sample's banner: MoM-KDE's and the KDE's AUCs and how many outliers each flags."""
    text = at.info[0].value
    found = re.search(
        r"MoM-KDE \(S = (\d+)\) ranks the ([\d,]+) rows labelled '(\w+)' (?:better|worse) "
        r"than the KDE \(AUC ([\d.]+) against ([\d.]+)\); MoM-KDE \(S = \1\) flags ([\d,]+) "
        r"of them, the KDE ([\d,]+)",
        text,
    )
    blocks, n_out, value, mom, kde, caught_mom, caught_kde = found.groups()
    # the sidebar's MoM-KDE, named by its S (the figure's caption: "h = ..., S = ...")
    assert re.match(rf"h = [\d.e+-]+, S = {blocks}\b", caption(at, "h = "))
    assert value == SENSOR_OUTLIER and _number(n_out) == is_outlier.sum()
    aucs = _aucs(table, ["mom_kde", "kde"], is_outlier)
    assert _close(mom, aucs["mom_kde"]) and _close(kde, aucs["kde"])
    assert ("better" in text) == (float(mom) > float(kde))
    for method, caught in (("mom_kde", caught_mom), ("kde", caught_kde)):
        assert _number(caught) == (table[f"is_outlier_{method}"].astype(bool) & is_outlier).sum()


def _check_ranking(at, table: pd.DataFrame) -> None:
    """The open ranking's caption: how many rows it lists, how many flagged, the highest
    flagged percentile and the rows above the threshold, against its table."""
    labels = _labels(at)
    flag_by = at.sidebar.selectbox(key="flag").value
    ranking = next(d.value for d in at.dataframe if "most to blame (nats)" in d.value.columns)
    text = next(
        c.value
        for c in at.caption
        if c.value.startswith("The ") and f"rows {method_label(flag_by)} flags" in c.value
    )
    listed, n = (
        _number(x) for x in re.match(r"The ([\d,]+) most anomalous of the ([\d,]+)", text).groups()
    )
    flags = table[f"is_outlier_{flag_by}"].astype(bool)
    assert listed == len(ranking) and n == len(table)
    assert f"all {int(flags.sum()):,} rows {method_label(flag_by)} flags" in text
    top = re.search(r"percentiles up to ([\d.]+)", text).group(1)
    highest = table.loc[flags, f"percentile_{flag_by}"].max()
    assert float(top) == pytest.approx(highest, rel=5e-3)  # 3 significant digits
    above = re.search(r"then the ([\d,]+) rows just above", text)
    assert _number(above.group(1)) == (~ranking["flagged"]).sum()
    assert ranking["flagged"].sum() == flags.sum()
    assert labels[method_label(flag_by)] == flag_by


def _check_bars_and_row(at, table: pd.DataFrame, frame: pd.DataFrame) -> None:
    """The bars' caption counts the rows flagged and drawn; the chosen row's caption gives
    its values as in the file, with where they fall among the rows."""
    flag_by = at.sidebar.selectbox(key="flag").value
    n_flagged = int(table[f"is_outlier_{flag_by}"].astype(bool).sum())
    text = caption(at, "Each bar is one of the")
    assert f"Each bar is one of the {n_flagged:,} rows {method_label(flag_by)} flags" in text
    bars = next(f for f in figures(at) if "nats" in str(f["layout"].get("xaxis", {}).get("title")))
    drawn = {y for t in bars["data"] if t["type"] == "bar" for y in t["y"]} - {"typical row"}
    assert f"the {len(drawn)} lowest-scored" in text or (
        len(drawn) == n_flagged and "all of them" in text
    )
    row = at.selectbox(key="why").value
    said = caption(at, f"Top left: row {row}")
    values_said = re.findall(r"(\w+) = ([-\d.e+]+) \([^;]+; ([^)]+)\)", said)
    assert values_said  # the row's top columns, each with its value and place
    for column, value, place in values_said:
        file_value = frame.loc[int(row) - 1, column]
        assert float(value) == pytest.approx(file_value, rel=5e-4)  # 4 significant digits
        column_values = frame[column].to_numpy(dtype=float)
        if place == "no row above it":
            assert (column_values <= file_value).all()
        elif found := re.match(r"([\d.]+%) of the rows above it", place):
            assert _close(found.group(1), (column_values > file_value).mean())
        else:
            share = re.match(r"([\d.]+%) of the rows at or below it", place).group(1)
            assert _close(share, (column_values <= file_value).mean())


def _check_download_note(at, table: pd.DataFrame) -> None:
    text = caption(at, "Score: ")
    n = int((table[[c for c in table if c.startswith("score_")]].notna().any(axis=1)).sum())
    assert f"every one of the file's {len(table):,} rows" in text or f"the {n:,} rows" in text
    unscored = len(table) - n
    assert (f"the {unscored:,} row(s) not scored" in text) == (unscored > 0)


def _check_density_caption(at) -> None:
    """h and S as the sidebar sets them; the blocks' rows per block as n / S; the default
    detector's curve said to be its blocks' median exactly when the figure draws it."""
    text = caption(at, "h = ")
    h, blocks = re.match(r"h = ([\d.e-]+), S = (\d+)", text).groups()
    default = method_label(DEFAULT_DETECTOR)
    drawn = {t.get("name", "") for fig in density_figures(at) for t in fig["data"]}
    assert (f"{default}'s density drawn is the median" in text) == any(
        name.startswith(default) for name in drawn
    )
    if note := [i.value for i in at.info if i.value.startswith("MoM-KDE's S = ")]:
        per, n, s = re.search(
            r"hold ([\d.]+) rows each \(n / S = ([\d,]+) / (\d+)\)", note[0]
        ).groups()
        assert s == blocks and _close(per, _number(n) / int(s))
    # the sidebar's S auto: 2⌈εn⌉+1 of the ε and n it names
    auto = caption(at, f"S = {blocks} = 2⌈εn⌉+1")
    eps, n = re.search(r"with ε = ([\d.]+), n = ([\d,]+)", auto).groups()
    assert int(blocks) == 2 * math.ceil(float(eps) * _number(n) - 1e-9) + 1


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"eps": "0.05", "flag": "kde"},
        {"eps": "0.2", "plot": ["temperature_c", "humidity_pct"], "flag": "mom_kde"},
    ],
    ids=["default", "eps-0.05-kde", "eps-0.2-maps"],
)
def test_your_data_sentences_match_the_numbers_on_the_sample(downloads, params):
    at = open_app(PAGE, sample="sensors", **params)
    assert not at.exception and not at.error
    table = read_download(downloads, at)
    frame = table.drop(
        columns=[
            c for c in table if c.split("_")[0] in ("row", "percentile", "score", "is", "blame")
        ]
    )
    is_outlier = (table[SENSOR_LABEL].astype(str) == SENSOR_OUTLIER).to_numpy()
    _check_flag_share(at, table, float(params.get("eps", 0.1)))
    _check_auc_verdict(at, table, is_outlier)
    _check_banner(at, table, is_outlier)
    _check_ranking(at, table)
    _check_bars_and_row(at, table, frame)
    _check_download_note(at, table)
    _check_density_caption(at)


def test_your_data_sentences_match_an_upload_without_a_label(downloads):
    """An upload with a constant and a text column: the reasons they are left out hold of
    their values; the flags, ranking and download counts hold of the download."""
    rng = np.random.default_rng(7)
    n = 400
    frame = pd.DataFrame(
        {
            "name": [f"sensor {i}" for i in range(n)],
            "x": rng.normal(size=n).round(4),
            "unit": 1.0,
            "y": rng.normal(size=n).round(4),
        }
    )
    frame.loc[:5, "x"] += 7.0
    at = upload("plant.csv", frame.to_csv(index=False).encode(), eps="0.05")
    assert not at.exception and not at.error
    left_out = caption(at, "Not scored by default")
    reasons = re.findall(r"(\w+) \(([^)]+)\)", left_out)
    assert "constant" in {reason for _, reason in reasons}
    for column, reason in reasons:
        if reason == "constant":
            assert frame[column].nunique() == 1
    # a text column with a distinct value in nearly every row (#45): the counts are its own
    distinct = re.findall(r"(\w+) \(([\d,]+) distinct values in ([\d,]+) rows \(an id", left_out)
    assert [c for c, _, _ in distinct] == ["name"]
    for column, k, rows in distinct:
        assert not pd.api.types.is_numeric_dtype(frame[column])
        assert int(k.replace(",", "")) == frame[column].nunique()
        assert int(rows.replace(",", "")) == frame[column].notna().sum()
    assert {"unit", "name"} <= set(re.findall(r"(\w+) \(", left_out))
    table = read_download(downloads, at)
    _check_flag_share(at, table, 0.05)
    _check_ranking(at, table)
    _check_bars_and_row(at, table, frame)
    _check_download_note(at, table)
    assert not any("the outliers best" in c.value for c in at.caption)  # no label: no AUC


def test_a_tiny_file_says_which_methods_it_leaves_out_and_why():
    """Two rows: the methods left out are the MoM-KDEs whose S needs more rows (2 per block),
    the rows needed are 2 S, and the methods shown are those scored."""
    at = upload("tiny.csv", b"a,b\n1,2\n3,5\n")
    (notice,) = at.warning
    blocks = [int(b) for b in re.findall(r"\(S = (\d+)", notice.value)]
    needs = re.search(r"per block, (.+?) rows here", notice.value).group(1)
    assert [int(x) for x in re.split(r", | and ", needs)] == [2 * b for b in blocks]
    assert blocks and all(2 < 2 * b for b in blocks)  # 2 rows: fewer than 2 per block
    shown = re.search(r"Shown: (.+)\.$", notice.value).group(1)
    scored = [method_label(m) for m in at.sidebar.selectbox(key="flag").options]
    assert set(re.split(r", | and ", shown)) == set(scored)
    assert DEFAULT_DETECTOR not in at.sidebar.selectbox(key="flag").options


def test_a_linked_row_not_flagged_is_named_with_the_rows_available():
    at = open_app(PAGE, sample="sensors", why="999999")
    (notice,) = [w.value for w in at.warning if "999999" in w.value]
    options = at.selectbox(key="why").options
    assert f"not among the {len(options)} flagged rows explained" in notice
    assert f"showing row {options[0]}" in notice and at.selectbox(key="why").value == options[0]
    n = re.search(r"numbered 1 to ([\d,]+)", notice).group(1)
    assert _number(n) == 960  # the sample's rows


def _means(fig: dict) -> pd.DataFrame:
    """A sweep figure's lines: method label -> mean per ratio."""
    return pd.DataFrame(
        {
            t["name"]: pd.Series(values(t["y"]), index=values(t["x"]))
            for t in fig["data"]
            if t.get("mode") == "lines+markers"
        }
    )


def test_real_data_best_on_average_and_stored_counts_hold():
    from app_support.results import latest_results

    at = open_app("app_pages/real_data.py", sets=["iris", "breast_cancer"])
    stored = pd.read_csv(latest_results("real_honest"))
    text = caption(at, "Stored reproduction")
    reps, ratios = re.search(r"(\d+) repetitions at (\d+) ratios", text).groups()
    assert int(reps) == stored["rep"].nunique() and int(ratios) == stored["ratio"].nunique()
    bests = [c.value for c in at.caption if c.value.startswith("Best on average")]
    figs = [f for f in figures(at) if f["layout"]["title"]["text"].endswith(": AUC")]
    assert len(bests) == len(figs) == 2
    for fig, best in zip(figs, bests):
        means = _means(fig).drop(columns=["MoM-KDE (oracle)"], errors="ignore").dropna()
        named = re.match(r"Best on average: (.+?)(?: \(at the ratios|\.)", best).group(1)
        assert means.mean().idxmax() == named
        for label, value in means.mean().items():  # no other line is higher on average
            assert value <= means[named].mean() + 1e-12, label


@pytest.mark.parametrize("scheme", ["uniform", "adversarial"])
def test_sweep_rivals_hold_of_the_figure(scheme):
    """ "X beats MoM-KDE at k of m ratios (r...)" and "No other method beats" are
    recounted from each figure's lines and bands (mean, standard error of 2 repetitions)."""
    at = open_app("app_pages/sweep.py", scheme=scheme, reps="2", n="200")
    rivals = [
        c.value
        for c in at.caption
        if "MoM-KDE at" in c.value or c.value.startswith("No other method")
    ]
    details = iter(rivals)
    for fig in figures(at):
        lines = {t["name"]: t for t in fig["data"] if t.get("mode") == "lines+markers"}
        lower = fig["layout"]["title"]["text"] != "ROC AUC"
        mom, mom_se = (
            values(lines["MoM-KDE"]["y"]),
            values(lines["MoM-KDE"]["customdata"]),
        )
        winners = {}
        for name, line in lines.items():
            if name in ("KDE", "MoM-KDE"):
                continue
            mean, se = values(line["y"]), values(line["customdata"])
            gap = (mom - mean) if lower else (mean - mom)
            wins = int((gap > np.hypot(se, mom_se)).sum())
            if wins:
                winners[name] = wins
        text = next(details)
        if winners:
            for name, wins in winners.items():
                assert re.search(
                    rf"{re.escape(name)}(?: beats MoM-KDE)? at {wins} of {len(mom)} ratios",
                    text,
                ), (name, text)
        else:
            assert text.startswith("No other method beats MoM-KDE")
