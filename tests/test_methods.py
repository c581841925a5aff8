"""The registry of methods: one name per estimator, each built, labelled and accepted once."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import momkde_core.experiments as ex
from momkde_core import make_contaminated, make_detector
from momkde_core.cli._main import build_parser
from momkde_core.methods import (
    ALIASES,
    DEFAULT_DETECTOR,
    DETECTOR_METHODS,
    EXPERIMENT_METHODS,
    METHODS,
    SHARES,
    SWEEP_BANDWIDTHS,
    SWEEP_BLOCKS,
    build_estimator,
    from_table,
    method_label,
    with_registry_names,
)

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


@pytest.fixture(scope="module")
def X():
    return make_contaminated("uniform", n_inliers=60, ratio=0.1, random_state=0).X


@pytest.mark.parametrize("name", METHODS)
def test_every_method_builds_an_estimator_that_fits(X, name):
    needed = {"n_blocks": 5, "bandwidth": 0.5}
    params = {p: needed[p] for p in METHODS[name].needs}
    est = build_estimator(name, contamination=0.1, random_state=0, **params)
    assert type(est) is METHODS[name].estimator
    assert est.fit(X).score_samples(X[:3]).shape == (3,)
    assert build_estimator(name, contamination=0.1, random_state=0, **params) is not est


def test_labels_are_unique_and_every_name_is_its_key():
    labels = [m.label for m in METHODS.values()]
    assert len(set(labels)) == len(labels)
    assert all(key == m.name for key, m in METHODS.items())
    assert method_label("mom_kde_rule") == "MoM-KDE (S rule, CV h)"
    assert method_label("unknown") == "unknown"


def test_fields_hold_known_values():
    for m in METHODS.values():
        assert m.description and not m.description.endswith(".")
        assert "%" not in m.description  # argparse formats help texts with %
        assert m.share in (None, *SHARES)
        assert m.sweep_blocks in (None, *SWEEP_BLOCKS)
        assert m.sweep_bandwidth in SWEEP_BANDWIDTHS


def test_make_detector_accepts_exactly_the_detector_methods():
    for name in METHODS:
        if name == DEFAULT_DETECTOR:  # OutlierDetector()'s own default, the registry's estimator
            detector = make_detector(name, random_state=0)
            assert detector.estimator is None
            X = np.random.default_rng(0).normal(size=(60, 2))
            assert type(detector.fit(X).estimator_) is METHODS[name].estimator
        elif name in DETECTOR_METHODS:
            assert type(make_detector(name).estimator) is METHODS[name].estimator
        else:
            with pytest.raises(ValueError, match="unknown method"):
                make_detector(name)
    score = next(a for a in build_parser()._subparsers._actions if a.dest == "command")
    method = next(a for a in score.choices["score"]._actions if a.dest == "method")
    assert tuple(method.choices) == DETECTOR_METHODS


def test_the_runner_accepts_exactly_the_experiment_methods_by_their_table_names():
    tabled = [name for name, m in METHODS.items() if m.table_name is not None]
    assert sorted(tabled) == sorted(EXPERIMENT_METHODS)
    table_names = [METHODS[name].table_name for name in EXPERIMENT_METHODS]
    assert len(set(table_names)) == len(table_names)
    assert ex.ALL_METHODS == tuple(table_names)
    assert all(from_table(METHODS[name].table_name) == name for name in EXPERIMENT_METHODS)
    for name in {*METHODS, *table_names}:
        if name in table_names:
            ex.make_tasks("synthetic", sources=["uniform"], ratios=[0.1], reps=1, methods=[name])
        else:
            with pytest.raises(ValueError, match="unknown method"):
                ex.make_tasks("synthetic", ratios=[0.1], reps=1, methods=[name])


def test_the_tables_mom_kde_is_the_s_rule_not_the_detectors():
    assert METHODS["mom_kde_rule"].table_name == "mom_kde"
    assert METHODS["mom_kde"].table_name == "mom_kde_auto"
    assert METHODS["mom_kde"].params["n_blocks"] == "auto"
    assert METHODS["mom_kde_rule"].sweep_blocks == "rule"
    assert with_registry_names(pd.DataFrame({"method": ["mom_kde", "mom_kde_auto"]}))[
        "method"
    ].tolist() == ["mom_kde_rule", "mom_kde"]


def test_one_name_one_estimator():
    """No two registry names build the same estimator with the same settings (S and h chosen
    the same way): the library's MoM-KDE is ``mom_kde`` alone, its former name
    ``mom_kde_auto`` an alias of it."""
    built = {}
    for name, method in METHODS.items():
        settings = (method.share, method.needs, method.sweep_blocks, method.sweep_bandwidth)
        key = (method.estimator, tuple(sorted(method.params.items())), *settings)
        assert key not in built, f"{name} and {built.get(key)} are one estimator"
        built[key] = name
    assert set(ALIASES.values()) <= set(METHODS) and not set(ALIASES) & set(METHODS)
    for old, new in ALIASES.items():
        old_est = build_estimator(old, contamination=0.1, random_state=0)
        assert (
            old_est.get_params()
            == build_estimator(new, contamination=0.1, random_state=0).get_params()
        )
        assert method_label(old) == method_label(new)


def test_a_former_name_means_the_same_detector_in_make_detector_and_momkde_score():
    """Where a user types a detector's name (make_detector, momkde score --method), a name
    of ALIASES gives the detector of the name that replaced it."""
    parser = build_parser()
    for old, new in ALIASES.items():
        if new not in DETECTOR_METHODS:
            continue
        old_det = make_detector(old, contamination=0.1, random_state=0)
        new_det = make_detector(new, contamination=0.1, random_state=0)
        assert old_det.estimator.get_params() == new_det.estimator.get_params()
        args = parser.parse_args(["score", "data.csv", "--method", old, "kde", "--out", "o.csv"])
        assert args.method == [new, "kde"]


def test_every_stored_runner_table_names_registry_methods():
    tables = 0
    for path in sorted(RESULTS.glob("*.csv.gz")):
        table = pd.read_csv(path)
        if tuple(table.columns) != ex.COLUMNS:  # a benchmark's table, its own names
            continue
        tables += 1
        assert set(with_registry_names(table)["method"]) <= set(EXPERIMENT_METHODS), path.name
    assert tables >= 10


def test_needed_parameters_and_shares_are_checked():
    with pytest.raises(TypeError, match="mom_kde_rule needs n_blocks"):
        build_estimator("mom_kde_rule", contamination=0.1)
    with pytest.raises(
        ValueError, match=r"^screened_kde: contamination must be a number in \[0, 0.5\)"
    ):  # (the method that refused is named: a command may ask for several)
        build_estimator("screened_kde", contamination=0.5)
    with pytest.raises(ValueError, match="unknown method 'lof'"):
        build_estimator("lof", contamination=0.1)
    assert build_estimator("spkde", contamination=0.5).contamination == 0.5
    assert build_estimator("mom_kde_auto_est", contamination=0.1).contamination == "auto"


@pytest.mark.parametrize("name", DETECTOR_METHODS)
def test_share_in_fit_says_whether_the_share_changes_a_fit_at_a_given_h_and_s(name):
    """What the app reads from the registry to key its cached fits: with h and S given,
    a method's fit changes with the stated share exactly when ``share_in_fit`` says so (a
    cluster of outliers, which the screened KDE's screen sets aside by the share stated)."""
    X = make_contaminated("regular_gaussian", n_inliers=300, ratio=0.2, random_state=0).X
    method = METHODS[name]
    given = {"bandwidth": 0.5, **({"n_blocks": 5} if method.auto_blocks else {})}
    scores = [
        build_estimator(name, contamination=c, random_state=0, **given).fit(X).score_samples(X)
        for c in (0.1, 0.2)
    ]
    # the same estimator, data and seed: a share that is not read gives the same numbers to
    # round-off (the fit runs the same operations)
    same = np.allclose(scores[0], scores[1], rtol=1e-12, atol=1e-12)
    assert same != method.share_in_fit
