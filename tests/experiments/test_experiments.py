"""The experiment runner: tidy table, reproducibility from seeds, Dask = local, protocols, oracle."""

import importlib.util
import io
import json
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from pandas.testing import assert_frame_equal
from threadpoolctl import threadpool_limits

import momkde_core.experiments as ex
from momkde_core import MoMKDE, metrics
from momkde_core.bandwidth import select_bandwidth
from momkde_core.experiments import _runner
from momkde_core.experiments._estimate import METRICS, _evaluation_grid
from momkde_core.experiments._n_blocks import ORACLE_GRID_SIZE
from momkde_core.experiments._tasks import _stream
from momkde_core.kernels import get_kernel
from momkde_core.synthetic import make_contaminated

SMALL = dict(
    sources=["uniform", "adversarial"],
    ratios=[0.1, 0.3],
    reps=2,
    seed=7,
    n_inliers=200,
    methods=ex.ALL_METHODS,
)


@contextmanager
def one_blas_thread_everywhere():
    """BLAS on one thread in this process and in joblib's worker processes. The runner's
    tables are compared bit for bit across processes and threads (the property: each sample
    is computed from its seed alone, by the same code whichever worker runs it), so the
    BLAS configuration is made the same for all of them: by default a worker gets its
    share of the cores (cores / n_jobs BLAS threads), this process all of them, and a BLAS
    may split its sums by thread count."""
    with (
        threadpool_limits(limits=1, user_api="blas"),
        parallel_config(backend="loky", inner_max_num_threads=1),
    ):
        yield


@pytest.fixture(scope="module")
def tasks():
    return ex.make_tasks("synthetic", **SMALL)


@pytest.fixture(scope="module")
def honest(tasks):
    with one_blas_thread_everywhere():
        return ex.run_experiments(tasks, n_jobs=1)


@pytest.fixture(scope="module")
def paper():
    with one_blas_thread_everywhere():
        return ex.run_experiments(ex.make_tasks("synthetic", protocol="paper", **SMALL), n_jobs=1)


def test_table_is_tidy_with_exact_columns_methods_and_metrics(honest):
    assert tuple(honest.columns) == ex.COLUMNS
    assert set(honest["method"]) == set(ex.ALL_METHODS)
    assert set(honest["metric"]) == set(METRICS)
    # one row per sample x method x metric
    assert len(honest) == 2 * 2 * 2 * len(ex.ALL_METHODS) * len(METRICS)
    assert not honest.duplicated(["source", "ratio", "rep", "method", "metric"]).any()
    assert honest["seed"].nunique() == 8
    js = honest.loc[honest["metric"] == "js", "value"]
    assert js.between(0, 1).all()
    # estimates floored at the smallest double: no KL is infinite from underflow alone
    kl = honest.loc[honest["metric"].isin(["kl_fhat_f", "kl_f_fhat"]), "value"]
    assert np.isfinite(kl).all() and (kl >= 0).all()
    assert (honest.loc[honest["method"].isin(["kde", "rkde", "spkde"]), "n_blocks"] == 1).all()
    assert honest.attrs["protocol"] == "honest"


def test_seeds_depend_only_on_the_sample_identity(tasks):
    seeds = {(t.source, t.ratio, t.rep): t.seed for t in tasks}
    fewer = ex.make_tasks("synthetic", ["adversarial"], [0.3], reps=1, seed=7, n_inliers=200)
    assert fewer[0].seed == seeds[("adversarial", 0.3, 0)]
    other_master = ex.make_tasks("synthetic", ["adversarial"], [0.3], reps=1, seed=8, n_inliers=200)
    assert other_master[0].seed != fewer[0].seed


def test_sweep_is_bit_for_bit_reproducible_in_parallel(tasks, honest):
    with one_blas_thread_everywhere():  # (the same code and BLAS set-up in every process)
        parallel = ex.run_experiments(tasks, n_jobs=2)
    assert_frame_equal(parallel, honest, check_exact=True)


def test_one_row_is_regenerated_from_its_seed_alone(honest):
    row = honest[(honest["source"] == "adversarial") & (honest["method"] == "mom_kde_oracle")].iloc[
        -1
    ]
    data = make_contaminated("adversarial", 200, row["ratio"], 1, random_state=int(row["seed"]))
    task = ex.Task(
        kind="synthetic",
        source="adversarial",
        ratio=row["ratio"],
        rep=int(row["rep"]),
        seed=int(row["seed"]),
        n_inliers=200,
        methods=ex.ALL_METHODS,
    )
    X, is_outlier, _ = ex.regenerate_sample(task)
    np.testing.assert_array_equal(X, data.X)  # (the same draws by the same code: bit for bit)
    np.testing.assert_array_equal(is_outlier, data.is_outlier)
    with one_blas_thread_everywhere():  # (as the table was: bit for bit, in this process)
        again = pd.DataFrame(ex.run_task(task), columns=list(ex.COLUMNS))
    expected = honest[honest["seed"] == row["seed"]].reset_index(drop=True)
    assert_frame_equal(again.astype(expected.dtypes.to_dict()), expected, check_exact=True)


def test_dask_cluster_gives_the_same_table(tasks, honest):
    # skipped only when dask.distributed is absent; one that fails to import fails the test
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("dask.distributed is not installed (pip install -e '.[distributed]')")
    import distributed

    # (workers on threads of this process: BLAS on one thread for all, as for the table)
    with (
        one_blas_thread_everywhere(),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
    ):
        on_dask = ex.run_experiments(tasks, scheduler=cluster.scheduler_address)
    assert_frame_equal(on_dask, honest, check_exact=True)


def _kde_bandwidths(df):
    return df[(df["method"] == "kde") & (df["metric"] == "js")].set_index(
        ["source", "ratio", "rep"]
    )["bandwidth"]


def test_paper_protocol_uses_the_inliers_for_cv_and_the_true_ratio_for_spkde(tasks, honest, paper):
    h_paper, h_honest = _kde_bandwidths(paper), _kde_bandwidths(honest)
    assert (h_paper != h_honest).any()
    # the paper's h is the CV bandwidth of the clean inliers, the honest one of the whole sample
    task = tasks[-1]
    X, is_outlier, _ = ex.regenerate_sample(task)

    def cv(data):
        return select_bandwidth(  # the paper's 5-fold search, as the runner uses
            data, "cv", get_kernel("gaussian"), n_folds=5, random_state=_stream(task.seed, "cv")
        )

    key = (task.source, task.ratio, task.rep)
    # (exact: the same candidate of the same grid, chosen by the same code in this process)
    with one_blas_thread_everywhere():
        assert h_paper[key] == cv(X[~is_outlier])
        assert h_honest[key] == cv(X)
    # the adversarial spike shrinks the honest CV bandwidth
    assert (h_honest.loc["adversarial"] < h_paper.loc["adversarial"]).all()
    # same seeds, same samples: the seed does not depend on the protocol
    assert_frame_equal(
        paper[["source", "ratio", "rep", "seed"]], honest[["source", "ratio", "rep", "seed"]]
    )


def test_spkde_gets_the_true_ratio_only_in_the_paper_protocol(tasks):
    task = replace(tasks[-1], methods=("spkde",))
    guess = {r[7]: r[8] for r in ex.run_task(task)}
    guessed_right = {r[7]: r[8] for r in ex.run_task(replace(task, contamination=task.ratio))}
    paper = {r[7]: r[8] for r in ex.run_task(replace(task, protocol="paper"))}
    assert guess["js"] != guessed_right["js"]
    assert paper["js"] != guessed_right["js"]  # different bandwidth (CV on the inliers)


def test_oracle_s_is_on_the_grid_and_best_in_js(tasks, honest):
    task = tasks[3]  # uniform, ratio 0.3
    X, is_outlier, data = ex.regenerate_sample(task)
    rows = honest[(honest["seed"] == task.seed) & (honest["method"] == "mom_kde_oracle")]
    chosen = int(rows["n_blocks"].iloc[0])
    h = float(rows["bandwidth"].iloc[0])
    candidates = ex.oracle_grid(int(is_outlier.sum()), len(X))
    assert candidates[0] == 1 and candidates[-1] == min(2 * is_outlier.sum() + 1, len(X))
    assert len(candidates) <= ORACLE_GRID_SIZE and chosen in candidates
    grid = _evaluation_grid("synthetic", 1)
    truth = data.true_pdf(grid.points)
    js_oracle = rows.loc[rows["metric"] == "js", "value"].item()
    for s in candidates:
        est = MoMKDE(int(s), h, normalize=False, random_state=_stream(task.seed, "blocks")).fit(X)
        p = est.pdf_grid(*grid.axes)
        assert js_oracle <= metrics.js_divergence(p, truth, grid.cell) + 1e-12
    assert js_oracle <= rows.loc[rows["metric"] == "js", "value"].item()


def test_block_bandwidth_grows_with_s_as_the_papers_rate():
    assert ex.block_bandwidth(0.3, 1, 1) == 0.3
    assert ex.block_bandwidth(0.3, 32, 1) == pytest.approx(0.3 * 2.0)
    assert ex.block_bandwidth(0.3, 64, 2) == pytest.approx(0.3 * 2.0)


def test_blockh_methods_use_the_block_bandwidth(honest):
    rows = honest[(honest["method"] == "mom_kde_oracle_blockh") & (honest["metric"] == "js")]
    kde_h = _kde_bandwidths(honest)
    for _, row in rows.iterrows():
        h = kde_h[(row["source"], row["ratio"], row["rep"])]
        assert row["bandwidth"] == pytest.approx(ex.block_bandwidth(h, int(row["n_blocks"]), 1))


def test_rule_for_s_ignores_labels_and_stays_in_range():
    data = make_contaminated("uniform", 200, 0.2, 1, random_state=3)
    s = ex.select_n_blocks(data.X, 0.3, random_state=0)
    assert 1 <= s <= len(data.X)
    assert s == ex.select_n_blocks(data.X, 0.3, random_state=0)


def test_real_data_rows_have_auc_only():
    tasks = ex.make_tasks("real", ["iris"], [0.1], reps=1, methods=["kde", "mom_kde_oracle"])
    df = ex.run_experiments(tasks)
    assert set(df["metric"]) == {"auc"} and set(df["method"]) == {"kde", "mom_kde_oracle"}
    assert df["value"].between(0, 1).all()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(kind="simulated"), "kind"),
        (dict(kind="synthetic", sources=["nope"]), "unknown scheme"),
        (dict(kind="real", sources=["uniform"]), "unknown data set"),
        (dict(kind="synthetic", ratios=[0.0]), "ratios"),
        (dict(kind="synthetic", protocol="oracle"), "protocol"),
        (dict(kind="synthetic", methods=["mom"]), "unknown method"),
        (dict(kind="synthetic", reps=0), "reps"),
        (dict(kind="synthetic", n_inliers=4), "n_inliers must be an integer >= 5"),
    ],
)
def test_make_tasks_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ex.make_tasks(**kwargs)


def test_summarize_gives_one_cell_per_source_method_ratio(honest):
    table = ex.summarize(honest, "js", ratios=[0.3])
    assert list(table.columns) == [0.3]
    assert len(table) == 2 * len(ex.ALL_METHODS)


# --- SweepFile: incremental writing and resuming -------------------------------------------

RESUME = dict(
    sources=["uniform", "thin_gaussian"],
    ratios=[0.1, 0.2],
    reps=2,
    seed=5,
    n_inliers=150,
    methods=["kde", "mom_kde_oracle", "spkde"],
)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """(tasks, the bytes of the table of an uninterrupted sweep, its in-memory table).
    Resumed sweeps are compared with it byte for byte: they run in this process, by the same
    code, so bit-identity is the property."""
    tasks = ex.make_tasks("synthetic", **RESUME)
    out = tmp_path_factory.mktemp("sweep") / "r.csv"
    sweep = ex.SweepFile(out, tasks)
    assert sweep.open() == 0
    df = sweep.run()
    assert sorted(p.name for p in out.parent.iterdir()) == ["r.csv"]  # partial files removed
    return tasks, out.read_bytes(), df


def test_sweep_file_gives_the_table_of_run_experiments(uninterrupted):
    tasks, written, df = uninterrupted
    assert_frame_equal(df, ex.run_experiments(tasks), check_exact=True)  # (in this process)
    read = pd.read_csv(io.BytesIO(written), dtype={"source": str})
    assert_frame_equal(read, df, check_dtype=False)


def test_a_failed_sample_keeps_the_others_and_a_rerun_computes_only_it(
    uninterrupted, tmp_path, monkeypatch
):
    tasks, written, _ = uninterrupted
    out = tmp_path / "r.csv"
    failing = tasks[5]
    real_run_task = ex.run_task

    def fail_once(task):
        if task == failing:
            raise ArithmeticError("injected failure")
        return real_run_task(task)

    monkeypatch.setattr(_runner, "run_task", fail_once)
    sweep = ex.SweepFile(out, tasks)
    sweep.open()
    with pytest.raises(
        ex.SweepIncomplete,
        match="1 sample.*thin_gaussian ratio 0.1 rep 1.*ArithmeticError: injected failure",
    ):
        sweep.run()
    assert not out.exists()
    kept = pd.read_csv(sweep.partial)
    assert kept["seed"].nunique() == len(tasks) - 1 and failing.seed not in set(kept["seed"])
    partial_bytes = sweep.partial.read_bytes()
    so_far = ex.SweepFile(out, tasks).finished()  # read only: a sweep may be appending
    assert sweep.partial.read_bytes() == partial_bytes
    assert list(pd.unique(so_far["seed"])) == [t.seed for t in tasks if t != failing]

    computed = []
    monkeypatch.setattr(
        _runner, "run_task", lambda task: computed.append(task) or real_run_task(task)
    )
    again = ex.SweepFile(out, tasks)
    assert again.open() == len(tasks) - 1
    again.run()
    assert computed == [failing]
    assert out.read_bytes() == written
    assert not again.partial.exists() and not again.meta.exists()


def test_a_row_cut_short_by_a_kill_is_recomputed_with_its_sample(
    uninterrupted, tmp_path, monkeypatch
):
    tasks, written, _ = uninterrupted
    out = tmp_path / "r.csv"
    sweep = ex.SweepFile(out, tasks[:3])
    sweep.open()
    sweep.run()
    # the state a kill leaves: 3 samples written, then half of a 4th sample's rows, the last
    # line cut in the middle of a number
    body = out.read_bytes()
    fourth = ex.SweepFile(tmp_path / "4.csv", [tasks[3]])
    fourth.open()
    fourth.run()
    rows = (tmp_path / "4.csv").read_bytes().split(b"\r\n")[1:]
    sweep.partial.write_bytes(body + b"\r\n".join(rows[:8]) + b"\r\n" + rows[8][:-5])
    sweep.meta.write_text(json.dumps(ex.SweepFile(out, tasks).settings))
    out.unlink()

    computed = []
    real_run_task = ex.run_task
    monkeypatch.setattr(
        _runner, "run_task", lambda task: computed.append(task) or real_run_task(task)
    )
    resumed = ex.SweepFile(out, tasks)
    assert resumed.open() == 3
    resumed.run()
    assert sorted(computed, key=tasks.index) == tasks[3:]
    assert out.read_bytes() == written


def test_a_partial_file_of_another_sweep_is_refused_not_mixed(uninterrupted, tmp_path):
    tasks, _, _ = uninterrupted
    out = tmp_path / "r.csv"
    ex.SweepFile(out, tasks).open()
    paper = [replace(t, protocol="paper") for t in tasks]
    with pytest.raises(
        ValueError, match="holds another sweep .its protocol differ.; rerun with --restart"
    ):
        ex.SweepFile(out, paper).open()
    assert ex.SweepFile(out, paper).open(restart=True) == 0


def test_a_sweep_computes_repetition_by_repetition(uninterrupted, tmp_path):
    """Stopped early, a sweep holds whole repetitions of every source and ratio."""
    tasks, _, _ = uninterrupted
    sweep = ex.SweepFile(tmp_path / "r.csv", tasks)
    sweep.open()
    todo = sweep.todo()
    assert sorted(todo, key=tasks.index) == tasks
    assert [t.rep for t in todo] == sorted(t.rep for t in tasks)
    assert {(t.source, t.ratio) for t in todo[: len(tasks) // 2]} == {
        (t.source, t.ratio) for t in tasks
    }


def test_first_rep_draws_the_samples_of_a_longer_sweep():
    longer = ex.make_tasks("real", ["iris", "german"], [0.1, 0.3], reps=5, seed=4)
    later = ex.make_tasks("real", ["iris", "german"], [0.1, 0.3], reps=3, seed=4, first_rep=2)
    assert later == [t for t in longer if t.rep >= 2]
    with pytest.raises(ValueError, match="first_rep must be an integer >= 0"):
        ex.make_tasks("real", first_rep=-1)


def test_a_worker_keeps_no_kernel_values_after_its_task():
    """In a worker process the runner drops a task's kernel values at its end (no later task
    draws that sample again): kept, they and the heap pages they held grew the worker until
    loky took it for a leak and replaced it ("A worker stopped while some jobs were given to
    the executor"). The rows are those of the task run here."""
    from momkde_core._engine import _memo

    task = ex.make_tasks(
        "synthetic", ["uniform"], [0.1], reps=1, n_inliers=100, methods=["kde", "mom_kde_oracle"]
    )[0]
    rows = ex.run_task(task)
    assert _memo._MEMO  # in this process the memo keeps them, up to the memo_size knob
    assert _runner._attempt_in_worker(3, task) == (3, rows, None)
    assert not _memo._MEMO
    failed = _runner._attempt_in_worker(0, replace(task, source="nope"))
    assert failed[:2] == (0, None) and isinstance(failed[2], Exception)
