"""The live figure's modules (app_support/live_lesson/js) under Node's own test runner,
against values the library writes here: numpy's permutation, MoMKDE's split and S, the
median, and whole 1-D and 2-D frames (MoM-KDE's map, its integral, the KDE, the strip)
against the library's fits of the same samples. A change to the library's rule that the
script does not follow fails here, without a browser. The bundle the page runs is checked
too: every module joined, and Node parses it."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from app_support.compute import Settings, make_estimator
from app_support.lessons import EXAMPLE_AXIS, _tophat_mom, example_one_sample
from app_support.live_lesson import bundle as bundle_module
from app_support.live_lesson.bundle import MODULES, bundle, worker_script
from app_support.live_lesson.payload import example_payload, live_payload, mesh_axes, view_axis
from app_support.mechanism import block_values, with_cluster
from momkde_core import KDE, MoMKDE
from momkde_core.bandwidth import n_blocks_for
from momkde_core.synthetic import make_contaminated

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
#: The frames' seeds, samples and settings (dim, scheme, inliers, k, place, x0, h, S or None
#: for S auto, seed).
FRAMES = [
    (1, "thin_gaussian", 300, 12, (4.5,), (2.0,), 0.3, 40, 3),
    (1, "uniform", 200, 0, (3.0,), (1.0,), 0.25, None, 0),
    (2, "uniform", 300, 15, (4.0, 4.0), (3.0, 3.0), 0.5, None, 0),
    (2, "thin_gaussian", 250, 8, (1.0, -1.0), (0.5, 0.0), 0.4, 24, 5),
]


def _frame(dim, scheme, n_inliers, k, at, x0, h, S, seed) -> dict:
    """A frame's payload (what the page sends) and the library's numbers for it."""
    base = make_contaminated(scheme, n_inliers, 0.1, dim, seed)
    data = with_cluster(base, k, at, seed) if k else base
    n = len(data.X)
    auto = S is None
    S = n_blocks_for(n, 0.1) if auto else S
    s = Settings(
        bandwidth=h, kernel="gaussian", n_blocks=S, contamination=0.1, seed=seed, auto_blocks=auto
    )
    payload = live_payload(base, s, h, (k, at), x0, s_options=[1, S], max_placed=200)
    mom = make_estimator("mom_kde", h, s).fit(data.X)
    raw = make_estimator("mom_kde", h, s).set_params(normalize=False).fit(data.X)
    if dim == 1:
        nodes = np.linspace(*view_axis(data.X[: n - k, 0]))[:, None]
    else:
        xs, ys = mesh_axes([tuple(payload["mesh"]["x"]), tuple(payload["mesh"]["y"])])
        nodes = np.stack([g.ravel() for g in np.meshgrid(xs, ys, indexing="ij")], axis=1)
    at_x0 = block_values(data.X, data.is_outlier, h, s, tuple(x0))
    return {
        "payload": payload,
        "library": {
            "n": n,
            "S": int(mom.n_blocks_),
            "labels": raw.block_of_.tolist(),
            "integral": float(np.exp(mom.log_norm_)),
            "mom": np.exp(mom.score_samples(nodes)).tolist(),
            "kde": np.exp(KDE(bandwidth=h).fit(data.X).score_samples(nodes)).tolist(),
            "strip": {
                "values": at_x0.values.tolist(),
                "near": at_x0.near.astype(int).tolist(),
                "median": at_x0.median,
                "mean": at_x0.mean,
            },
        },
    }


def _example(outliers: int) -> dict:
    """Home's payload for |O| = ``outliers`` and the library's Example 1 on its axis."""
    h, seed = 0.4, 0
    X, _ = example_one_sample(200, outliers, seed)
    nodes = np.linspace(*EXAMPLE_AXIS)[:, None]
    S = min(2 * outliers + 1, len(X))
    return {
        "payload": example_payload(
            200, outliers, 20, h, seed, 0.05, "|O|", [str(o) for o in range(21)]
        ),
        "library": {
            "S": S,
            "mom": _tophat_mom(X, S, h, seed).pdf(nodes).tolist(),
            "kde": KDE(bandwidth=h, kernel="tophat").fit(X).pdf(nodes).tolist(),
        },
    }


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory) -> str:
    """The library's values, written where the Node tests read them (MOMKDE_LIVE_FIXTURES)."""
    rng = np.random.default_rng(0)
    columns = [rng.standard_normal(size).tolist() for size in (1, 2, 7, 8, 229, 230)]
    columns.append([0.0] * 5 + [1e-300, 3.0])
    values = {
        "permutations": [
            {"seed": seed, "n": n, "order": np.random.RandomState(seed).permutation(n).tolist()}
            for seed in (0, 1, 7, 2**31 + 5)
            for n in (1, 2, 10, 1131)
        ],
        "splits": [
            {
                "n": n,
                "S": S,
                "seed": seed,
                "labels": MoMKDE(n_blocks=S, bandwidth=0.5, random_state=seed, normalize=False)
                .fit(np.arange(n, dtype=float)[:, None])
                .block_of_.tolist(),
            }
            for n, S, seed in ((10, 3, 0), (101, 21, 4), (1131, 229, 0), (50, 1, 2))
        ],
        "autoBlocks": [
            {"n": n, "eps": eps, "S": n_blocks_for(n, eps)}
            for n in (1, 10, 100, 1131, 2200)
            for eps in (0.0, 0.05, 0.1, 0.3, 0.5)
        ],
        "medians": [{"values": c, "median": float(np.median(c))} for c in columns],
        "frames": [_frame(*f) for f in FRAMES],
        "examples": [_example(outliers) for outliers in (0, 6, 20)],
    }
    folder = tmp_path_factory.mktemp("live_fixtures")
    path = folder / "library.json"
    path.write_text(json.dumps(values), encoding="utf-8")
    return str(path)


@needs_node
def test_the_modules_follow_the_library_under_node(fixtures):
    """node --test over js/tests: every test file passes against the library's values."""
    tests = sorted(str(p) for p in (MODULES / "tests").glob("*.test.js"))
    assert tests
    done = subprocess.run(
        [NODE, "--test", *tests],
        env={"MOMKDE_LIVE_FIXTURES": fixtures, "PATH": ""},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout


@needs_node
def test_the_bundle_parses(tmp_path):
    """The page's bundle (an ES module) and the worker's script are valid for Node's parser."""
    page = tmp_path / "page.mjs"
    page.write_text(bundle(), encoding="utf-8")
    worker = tmp_path / "worker.js"
    worker.write_text(worker_script(), encoding="utf-8")
    for script in (page, worker):
        done = subprocess.run([NODE, "--check", str(script)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_every_module_is_in_the_bundle():
    """No module of js/ is left out of the page's bundle or the worker's (dead code)."""
    script = bundle() + worker_script()
    for path in MODULES.glob("*.js"):
        assert f"// ---- {path.name}\n" in script, path.name


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('import * as all from "./rng.js";\n', "named imports"),
        ("export { MT19937 };\n", "exported declarations"),
        ("export default function () {}\n", "entry module"),
    ],
)
def test_the_bundler_refuses_what_it_cannot_join(tmp_path, monkeypatch, text, says):
    (tmp_path / "main.js").write_text('import { odd } from "./odd.js";\nexport default 1;\n')
    (tmp_path / "odd.js").write_text(text + "export const odd = 1;\n")
    (tmp_path / "rng.js").write_text("export class MT19937 {}\n")
    monkeypatch.setattr(bundle_module, "MODULES", tmp_path)
    with pytest.raises(ValueError, match=says):
        bundle_module._join("main.js")


def test_the_bundler_refuses_a_cycle(tmp_path, monkeypatch):
    (tmp_path / "main.js").write_text('import { a } from "./a.js";\nexport default a;\n')
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\nexport const a = b;\n')
    (tmp_path / "b.js").write_text('import { a } from "./a.js";\nexport const b = 1;\n')
    monkeypatch.setattr(bundle_module, "MODULES", tmp_path)
    with pytest.raises(ValueError, match="cycle"):
        bundle_module._join("main.js")
