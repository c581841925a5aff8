"""``momkde score`` on a mixed table: text, bool and date columns scored by default, ids
left out with a note, categorical columns blamed like the others."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from momkde_core.cli import main

CITY = {"FR": "Paris", "DE": "Berlin", "US": "NYC"}


def run_score(*argv):
    try:
        return main(["score", *map(str, argv)])
    except SystemExit as exit_:  # argparse's own errors
        return exit_.code


@pytest.fixture(scope="module")
def staff(tmp_path_factory):
    """A staff table: an id, a salary set by the role, a city set by the country, a bool, a
    hiring date; row 0 an intern with a manager's salary, row 1 a city of another country."""
    rng = np.random.default_rng(0)
    n = 1500
    role = rng.choice(["intern", "engineer", "manager"], n, p=[0.3, 0.5, 0.2])
    country = rng.choice(list(CITY), n)
    df = pd.DataFrame(
        {
            "id": [f"E{i:05d}" for i in range(n)],
            "salary": np.select([role == "intern", role == "engineer"], [20.0, 60.0], 100.0)
            + rng.normal(0, 3, n),
            "role": role,
            "country": country,
            "city": pd.Series(country).map(CITY),
            "remote": rng.choice([True, False], n),
            "hired": (
                pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), "D")
            ).strftime("%Y-%m-%d"),
        }
    )
    df.loc[:1, "hired"] = "2021-03-01"  # (mid-range: the planted rows odd in one way only)
    df.loc[0, ["salary", "role"]] = [100.0, "intern"]
    df.loc[1, ["country", "city"]] = ["FR", "NYC"]
    path = tmp_path_factory.mktemp("mixed") / "staff.csv"
    df.to_csv(path, index=False)
    return path, df


def test_score_reads_text_bool_and_dates_and_leaves_the_id_out_with_a_note(staff, tmp_path, capsys):
    path, df = staff
    out = tmp_path / "scored.csv"
    assert run_score(path, "--contamination", "0.01", "--explain", "2", "--out", out) == 0
    err = capsys.readouterr().err
    assert "column 'id' is not scored: 1,500 distinct values in 1,500 rows (an id" in err
    assert "column 'hired' holds dates: scored as days since 1970-01-01" in err
    assert "scored 1,500 rows on 6 column(s)" in err  # salary, role, country, city, remote, hired
    scored = pd.read_csv(out)
    pd.testing.assert_frame_equal(scored[df.columns], pd.read_csv(path))  # every cell as read
    assert scored["is_outlier"][:2].all()
    # an intern with a manager's salary: the two share the blame (Shapley splits what they
    # do together); a city of another country: country and city
    assert {scored.loc[0, "blame_1"], scored.loc[0, "blame_2"]} == {"salary", "role"}
    assert {scored.loc[1, "blame_1"], scored.loc[1, "blame_2"]} == {"country", "city"}


def test_a_missing_level_is_a_level_and_a_method_of_numbers_only_is_refused(
    staff, tmp_path, capsys
):
    path, df = staff
    holes = tmp_path / "holes.csv"
    df.assign(role=df["role"].where(np.arange(len(df)) % 50 != 7)).to_csv(holes, index=False)
    out = tmp_path / "o.csv"
    assert run_score(holes, "--method", "kde", "--out", out) == 0
    assert len(pd.read_csv(out)) == len(df)  # no row left out: the missing role is a level
    capsys.readouterr()
    assert run_score(path, "--method", "spkde", "--out", out) == 2
    assert (
        "spkde reads numeric columns only, and 'role', 'country', 'city', 'remote' are "
        "categorical" in capsys.readouterr().err
    )


def test_a_category_with_thousands_of_levels_is_a_clear_error(tmp_path, capsys):
    rng = np.random.default_rng(1)
    path = tmp_path / "codes.csv"
    pd.DataFrame({"x": rng.normal(size=3000), "code": [f"c{i}" for i in range(3000)]}).to_csv(
        path, index=False
    )
    out = tmp_path / "o.csv"
    assert run_score(path, "--method", "kde", "--out", out) == 0  # by default: left out
    assert "column 'code' is not scored" in capsys.readouterr().err
    assert run_score(path, "--columns", "x", "code", "--method", "kde", "--out", out) == 2
    assert "categorical column 'code' has 3000 levels (at most 1000)" in capsys.readouterr().err
