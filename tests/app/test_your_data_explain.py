"""Your data explains every flag (#35): a bar of contributions per flagged row under a typical
row's, the ranking's columns most to blame, one flagged row (chosen in the URL) in the
marginal and pair views of its top columns, and the download's blame columns, as
``momkde score --explain`` writes them."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd

from app_support.blame_figures import TYPICAL
from tests.app._apptest import figures, names, read_download, upload, values

#: The planted rows: x and y typical on their own, their pair broken apart (y follows x
#: elsewhere); the file's rows 1 .. 6.
BROKEN = 6


def _broken_pairs_csv(n: int = 400, seed: int = 7) -> bytes:
    """x and y correlated at 0.95 and an independent z; the first BROKEN rows have x = 1.2,
    y = -1.2 (each about one standard deviation out, their pair far from the others)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    y = 0.95 * x + np.sqrt(1 - 0.95**2) * rng.standard_normal(n)
    z = rng.standard_normal(n)
    x[:BROKEN], y[:BROKEN] = 1.2 + 0.05 * rng.standard_normal(BROKEN), -1.2
    return pd.DataFrame({"x": x, "y": y, "z": z}).round(4).to_csv(index=False).encode()


def _bars(at) -> dict:
    return next(f for f in figures(at) if TYPICAL in f["data"][0].get("y", []))


def test_broken_pairs_are_blamed_on_their_two_columns(downloads):
    at = upload("pairs.csv", _broken_pairs_csv(), eps="0.05")
    assert "Why these rows are flagged" in [s.value for s in at.subheader]
    bars = _bars(at)
    labels = list(bars["data"][0]["y"])
    assert labels[0] == TYPICAL
    segments = {t["name"]: values(t["x"]) for t in bars["data"] if t["type"] == "bar"}
    assert set(segments) == {"x", "y", "z"}
    planted = [i for i, label in enumerate(labels) if label in {f"row {r}" for r in range(1, 7)}]
    assert len(planted) == BROKEN  # every planted row is flagged, and drawn
    for i in planted:  # the pair is to blame, z is as typical as in the typical row
        assert min(segments["x"][i], segments["y"][i]) > segments["z"][i]
    # the black ticks are the bars' sums, and grow with the ranking (most anomalous first)
    ticks = values(next(t for t in bars["data"] if t["type"] == "scatter")["x"])
    total = sum(segments.values())
    np.testing.assert_allclose(ticks, total, rtol=1e-9, atol=1e-9)  # (one sum, two orders)
    # scores and contributions are separate computations of one log density: the exact
    # Shapley split sums to it to round-off, far below the 1e-6 nats allowed here
    assert np.all(np.diff(ticks[1:]) <= 1e-6)
    ranking = at.dataframe[0].value
    blamed = ranking["most to blame (nats)"]
    for row in range(1, BROKEN + 1):  # "x (+3.1), y (+2.9)"
        assert {part.split(" (")[0] for part in blamed[row].split(", ")} == {"x", "y"}
    table = read_download(downloads, at)
    flagged = table["is_outlier_mom_kde_21"]
    assert set(table.loc[flagged, "blame_1"]) <= {"x", "y", "z"}
    assert table.loc[~flagged, "blame_1"].isna().all()  # empty for the rows not flagged
    pairs = table.loc[table["row"] <= BROKEN, ["blame_1", "blame_2"]]
    assert all(set(pair) == {"x", "y"} for pair in pairs.itertuples(index=False))
    assert (table["blame_1_nats"] >= table["blame_2_nats"]).where(flagged, True).all()


def test_the_row_looked_at_comes_from_the_url():
    at = upload("pairs.csv", _broken_pairs_csv(), eps="0.05", why="4")
    assert at.selectbox(key="why").value == "4"
    views = next(f for f in figures(at) if "row 4" in names(f))
    star = next(t for t in views["data"] if t.get("name") == "row 4")
    assert abs(star["x"][0] - 1.2) < 0.3  # the planted x (1.2 and a little noise)
    assert abs(star["y"][0] + 1.2) < 1e-9  # its y, as in the file
    text = next(c.value for c in at.caption if c.value.startswith("Top left: row 4"))
    assert "x = " in text and "y = " in text
    # a row that is not flagged (a link made with other settings) opens the first one
    again = upload("pairs.csv", _broken_pairs_csv(), eps="0.05", why="300")
    first = str(again.dataframe[0].value.index[0])
    assert again.selectbox(key="why").value == first


def test_a_kernel_without_marginals_says_why_there_is_no_explanation():
    at = upload("pairs.csv", _broken_pairs_csv(), eps="0.05", kernel="epanechnikov", flag="mom_kde")
    assert "Why these rows are flagged" not in [s.value for s in at.subheader]
    notes = [i.value for i in at.info if "is not shown" in i.value]
    assert notes and "the Gaussian kernel" in notes[0] and "sidebar" in notes[0]
    assert "most to blame (nats)" not in at.dataframe[0].value.columns


def test_one_column_takes_the_whole_blame(downloads):
    at = upload("pairs.csv", _broken_pairs_csv(), eps="0.05", score=["z"], plot=["z"])
    bars = _bars(at)
    assert [t["name"] for t in bars["data"] if t["type"] == "bar"] == ["z"]
    text = next(c.value for c in at.caption if c.value.startswith("Each bar"))
    assert "with one column scored, the row's whole abnormality" in text
    table = read_download(downloads, at)
    assert "blame_2" not in table and set(table["blame_1"].dropna()) == {"z"}
    note = next(c.value for c in at.caption if "blame_1" in c.value)
    assert "Columns blame_1, blame_1_nats: the column most to blame" in note


def test_rows_named_by_id_with_missing_values_keep_their_blame(downloads):
    frame = pd.read_csv(io.BytesIO(_broken_pairs_csv()))
    frame.insert(0, "reading_id", np.arange(1000, 1000 + len(frame)))
    frame.loc[[10, 11], "z"] = np.nan  # dropped from the scores, kept in the download
    at = upload("ids.csv", frame.to_csv(index=False).encode(), eps="0.05", why="1003")
    assert at.selectbox(key="why").value == "1003"  # the planted row with id 1003
    ranking = at.dataframe[0].value
    table = read_download(downloads, at).set_index("reading_id")
    for reading in ranking.index[ranking["flagged"]]:
        listed = {
            p.split(" (")[0] for p in ranking.loc[reading, "most to blame (nats)"].split(", ")
        }
        assert table.loc[reading, "blame_1"] in listed
    assert table.loc[[1010, 1011], "blame_1"].isna().all()
    assert set(table.loc[1000:1005, ["blame_1", "blame_2"]].stack()) == {"x", "y"}


def test_a_row_beyond_every_kernels_reach_is_named_not_split():
    from app_support.compute import row_sample
    from app_support.scoring import MAX_FIT

    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.standard_normal((2500, 2)), columns=["x", "y"]).round(4)
    far = np.setdiff1d(np.arange(2500), row_sample(2500, MAX_FIT, 0))[0]  # not fitted
    frame.loc[far, "x"] = 1e160  # its density is 0 under every kernel
    at = upload("far.csv", frame.to_csv(index=False).encode(), eps="0.05", std="false", flag="kde")
    assert not at.exception
    # the ranking of the method that flags (the KDE's tab): the one naming the culprits
    ranking = next(d.value for d in at.dataframe if "most to blame (nats)" in d.value)
    assert ranking.index[0] == far + 1
    assert ranking.iloc[0]["most to blame (nats)"] == "x (beyond reach)"
    bars = _bars(at)
    text = next(t for t in bars["data"] if t.get("mode") == "text")
    assert text["y"] == [f"row {far + 1}"] and "beyond every kernel's reach in x" in text["text"][0]
    caption = next(c.value for c in at.caption if c.value.startswith("Each bar"))
    assert "1 bar(s) have density 0" in caption


def test_above_ten_columns_the_shares_are_sampled_and_fewer_rows_explained():
    rng = np.random.default_rng(3)
    wide = pd.DataFrame(rng.standard_normal((300, 12)), columns=[f"c{j}" for j in range(12)])
    wide.iloc[:5, 4] += 7.0  # five rows far out in c4
    at = upload("wide.csv", wide.round(4).to_csv(index=False).encode(), eps="0.05")
    text = next(c.value for c in at.caption if c.value.startswith("A segment to the right"))
    assert "estimated from 256 random orders of the columns (seeded)" in text
    ranking = at.dataframe[0].value
    for row in range(1, 6):
        assert ranking.loc[row, "most to blame (nats)"].startswith("c4 (")


def test_a_categorical_column_is_blamed_and_drawn_as_its_levels():
    """The staff sample (#45): a row blamed on its city is drawn as the rows at each city,
    its own in red, and the caption's share of its level is the file's."""
    from app_support.blame_figures import ROW_COLOUR
    from tests.app._apptest import open_app

    first = open_app("app_pages/your_data.py", sample="staff")
    blamed = first.dataframe[0].value["most to blame (nats)"]
    row = next(str(name) for name, text in blamed.items() if str(text).startswith("city"))
    at = open_app("app_pages/your_data.py", sample="staff", why=row)
    table = pd.read_csv("assets/staff.csv")
    city = table["city"].iloc[int(row) - 1]
    views = next(f for f in figures(at) if "city: every row" in json.dumps(f["layout"]))
    bars = next(t for t in views["data"] if t["type"] == "bar" and "Paris" in t.get("x", []))
    counts = table["city"].value_counts()
    assert list(bars["x"]) == [str(c) for c in counts.index]  # the most common first
    assert values(bars["y"]).tolist() == counts.tolist()
    reds = [x for x, colour in zip(bars["x"], bars["marker"]["color"]) if colour == ROW_COLOUR]
    assert reds == [city]
    text = next(c.value for c in at.caption if c.value.startswith(f"Top left: row {row}"))
    share = (table["city"] == city).mean()
    assert f"city = {city} (" in text and f"{share:.1%} of the rows at this level" in text
    assert f"the rows at each level (the most common first), row {row}'s level in red" in text
