"""Unweighted fits with the parameters that existed before sample weights, sampling and the
scikit-learn contract were added give bit-identical results (the experiment tables in docs/
were computed with that code).

The pins were computed at commit bee64be; the 1-D Gaussian grids of kde_cv_1d,
kde_robust_1d, kde_scott_1d and mom_s7_h03_1d were re-pinned when the FFT grid became exact
to 1e-6 relative at every node (Taylor-moment binning; the old grids were up to 2 % off in
the tails, see the commit message). Each output is pinned by the BLAKE2 digest of
its float64 bytes (bitwise equality), with its first value in hex so that a failure shows
how far it moved. ``python tests/test_pinned_values.py`` prints the pins of the current
code (to re-pin after a deliberate, documented change of results).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from momkde_core import KDE, RKDE, SPKDE, MoMKDE


def _data(d: int) -> np.ndarray:
    """Two inlier modes and scattered outliers (the paper's shape), 230 rows in d dims."""
    rng = np.random.default_rng(2024 + d)
    inliers = np.r_[rng.normal(0, 0.5, (100, d)), rng.normal(4, 0.5, (100, d))]
    return np.r_[inliers, rng.uniform(-4, 10, (30, d))]


def _query(d: int) -> np.ndarray:
    return np.random.default_rng(7 + d).uniform(-5, 11, (40, d))


CASES = {
    "kde_scott_1d": (lambda: KDE(), 1),
    "kde_silverman_epanechnikov_2d": (lambda: KDE("silverman", kernel="epanechnikov"), 2),
    "kde_cv_1d": (lambda: KDE("cv", random_state=0), 1),
    "kde_robust_1d": (lambda: KDE("robust", random_state=0), 1),
    "mom_defaults_1d": (lambda: MoMKDE(random_state=0), 1),
    "mom_s7_h03_1d": (lambda: MoMKDE(7, 0.3, random_state=0), 1),
    "mom_s9_scott_tophat_1d": (lambda: MoMKDE(9, "scott", kernel="tophat", random_state=1), 1),
    "mom_s9_scott_2d": (lambda: MoMKDE(9, "scott", random_state=1), 2),
    "mom_s9_h08_3d": (lambda: MoMKDE(9, 0.8, random_state=2), 3),
    "rkde_1d": (lambda: RKDE(), 1),
    "rkde_huber_kde_2d": (lambda: RKDE(0.6, loss="huber", scale_from="kde"), 2),
    "spkde_1d": (lambda: SPKDE(), 1),
    "spkde_beta_2d": (lambda: SPKDE(0.5, beta=1.3), 2),
}


def _outputs(name: str) -> dict[str, np.ndarray]:
    make, d = CASES[name]
    X = _data(d)
    est = make().fit(X)
    out = {"bandwidth": np.atleast_1d(est.bandwidth_), "log_norm": np.atleast_1d(est.log_norm_),
           "score_samples": est.score_samples(_query(d)), "pdf_train": est.pdf(X)}
    if d <= 2:
        axes = [np.linspace(-5, 11, 97 if d == 1 else 41)] * d
        out["pdf_grid"] = est.pdf_grid(*axes)
    if hasattr(est, "weights_"):
        out["weights"] = est.weights_
    return out


def _pin(values: np.ndarray) -> tuple[str, str]:
    values = np.ascontiguousarray(values, dtype=np.float64)
    return hashlib.blake2b(values.tobytes(), digest_size=12).hexdigest(), float(values.flat[0]).hex()


PINS = {  # ``python tests/test_pinned_values.py`` at commit bee64be
    'kde_cv_1d': {
        'bandwidth': ('33c33af9109fb7e19ce9f57c', '0x1.c974a7fa9227ep-2'),
        'log_norm': ('10bc4a33204cfd5e078948dd', '0x0.0p+0'),
        'score_samples': ('69eab69d65b61b55de717c1b', '-0x1.69e8c7de7e5f4p+0'),
        'pdf_train': ('d48ed3ea791e65c1b14e3845', '0x1.5027a699c05dap-4'),
        'pdf_grid': ('87dd862f581b33cc76f3e9e0', '0x1.c18a8e4bb425ep-16'),
    },
    'kde_robust_1d': {
        'bandwidth': ('e60a3df1f00f23829a19b4d0', '0x1.bf0515339c303p-2'),
        'log_norm': ('10bc4a33204cfd5e078948dd', '0x0.0p+0'),
        'score_samples': ('308062789a8417aeef05e084', '-0x1.676baa2c83c66p+0'),
        'pdf_train': ('963876fd05c400ea208191dc', '0x1.4db9f36ffd67ap-4'),
        'pdf_grid': ('c8f84298bc82ee06d6067d59', '0x1.61c9e56463cedp-16'),
    },
    'kde_scott_1d': {
        'bandwidth': ('2a255be566323eaedb71b44f', '0x1.b626492eb9eccp-1'),
        'log_norm': ('10bc4a33204cfd5e078948dd', '0x0.0p+0'),
        'score_samples': ('2df715f4149664fd027d56af', '-0x1.c49f9a75f6efdp+0'),
        'pdf_train': ('9fd1300c3fdf7e069d4cf62f', '0x1.9d529c1e60bfap-4'),
        'pdf_grid': ('da81fc34ebdf88edd02b428d', '0x1.2b033173def55p-10'),
    },
    'kde_silverman_epanechnikov_2d': {
        'bandwidth': ('a30c69b1daebc2ef4a42daac', '0x1.f7449516add2bp-1'),
        'log_norm': ('10bc4a33204cfd5e078948dd', '0x0.0p+0'),
        'score_samples': ('e29bf16158b49e7ae02eb9f9', '-inf'),
        'pdf_train': ('2484e131795895d87fd925f1', '0x1.ee1d5f37cad65p-4'),
        'pdf_grid': ('eeb3bc935f0474356249fb56', '0x0.0p+0'),
    },
    'mom_defaults_1d': {
        'bandwidth': ('e60a3df1f00f23829a19b4d0', '0x1.bf0515339c303p-2'),
        'log_norm': ('8a1c970f4e50740e088571d7', '-0x1.0ef09ce7ec740p-2'),
        'score_samples': ('43b9790302889b5ae50b22cf', '-0x1.401857d76056dp+0'),
        'pdf_train': ('d43368225951ac4867996c16', '0x1.0dd9cf4aca801p-4'),
        'pdf_grid': ('649a27c3a02e4e3ca8b89524', '0x1.575eefe5dea3dp-81'),
    },
    'mom_s7_h03_1d': {
        'bandwidth': ('033dcb3329da963ab15a3390', '0x1.3333333333333p-2'),
        'log_norm': ('41572b3bff5465971158415b', '-0x1.96cbec34b5a5dp-4'),
        'score_samples': ('e6b9fbdc653cca640f0ea620', '-0x1.2f3ebe46af08cp+0'),
        'pdf_train': ('06e2f83f060ea398bcac6edf', '0x1.48d2dad0734e0p-4'),
        'pdf_grid': ('e786118b2e2eef9315a74d6f', '0x1.daeb7004a582ep-36'),
    },
    'mom_s9_h08_3d': {
        'bandwidth': ('f93865646d4c0d5a58a844b6', '0x1.999999999999ap-1'),
        'log_norm': ('e754f49849b5b9424bdfc9a0', '-0x1.20bbe4c28ac00p-3'),
        'score_samples': ('d35f8cf0fb687cb8cd7ff114', '-0x1.f30eb0746d5d4p+5'),
        'pdf_train': ('94a25f021d8d7721cd1c328b', '0x1.17d4ae1c273ddp-5'),
    },
    'mom_s9_scott_2d': {
        'bandwidth': ('a30c69b1daebc2ef4a42daac', '0x1.f7449516add2bp-1'),
        'log_norm': ('8caed2527ce28736e6944d70', '-0x1.78742557f8e54p-4'),
        'score_samples': ('292f1304aa2ab4db842a91a5', '-0x1.81453b0e1b583p+3'),
        'pdf_train': ('ab64e6f4fcc02923c6b47443', '0x1.d85f9ea631af4p-5'),
        'pdf_grid': ('4e5ef1a965c04fbf1cc7304b', '0x1.b2be2b0966144p-34'),
    },
    'mom_s9_scott_tophat_1d': {
        'bandwidth': ('2a255be566323eaedb71b44f', '0x1.b626492eb9eccp-1'),
        'log_norm': ('e4fda6d85d3c824abbfd5daf', '-0x1.a85b05e96eed4p-4'),
        'score_samples': ('a4815ce018613d1736ca1176', '-0x1.599e436647849p+0'),
        'pdf_train': ('2fbb5f4b6e515ceef8b6e5c6', '0x1.3247d1bfa3cedp-4'),
        'pdf_grid': ('91dca4de3290e5182fef12af', '0x0.0p+0'),
    },
    'rkde_1d': {
        'bandwidth': ('2a255be566323eaedb71b44f', '0x1.b626492eb9eccp-1'),
        'log_norm': ('10bc4a33204cfd5e078948dd', '0x0.0p+0'),
        'score_samples': ('0cf01d03e44524300fd4541c', '-0x1.b155ca07e818fp+0'),
        'pdf_train': ('1eca76793c5befcfaf08dd61', '0x1.a9db75d0606e2p-4'),
        'pdf_grid': ('5ba46e664a6e41d0d93067e7', '0x1.d78e8f4ebc79bp-17'),
        'weights': ('9817fe4f0da4428b9bd97378', '0x1.01fd575e0db30p-8'),
    },
    'rkde_huber_kde_2d': {
        'bandwidth': ('1fbead1e29655807b6f7d27b', '0x1.3333333333333p-1'),
        'log_norm': ('10bc4a33204cfd5e078948dd', '0x0.0p+0'),
        'score_samples': ('9a55d6e178a9337c83704e0e', '-0x1.7db8deff68ecfp+3'),
        'pdf_train': ('99f7ade3b3c91ea55107b124', '0x1.8aea2887049a0p-4'),
        'pdf_grid': ('059656f317782758be39e70e', '0x1.1505e367cee08p-43'),
        'weights': ('72cbae45ac0a917aaec0bcea', '0x1.29954689305b1p-8'),
    },
    'spkde_1d': {
        'bandwidth': ('2a255be566323eaedb71b44f', '0x1.b626492eb9eccp-1'),
        'log_norm': ('10bc4a33204cfd5e078948dd', '0x0.0p+0'),
        'score_samples': ('02dee2cf98fc572aaec9482a', '-0x1.b36fa38680200p+0'),
        'pdf_train': ('84ea3c96a2470d290c768ab0', '0x1.abe8ffb4e0affp-4'),
        'pdf_grid': ('17b4118e2f0dccd4decc67c0', '0x1.caadc9f06447ap-16'),
        'weights': ('0891b79b9317f516b10723f4', '0x1.d117cafc486b6p-9'),
    },
    'spkde_beta_2d': {
        'bandwidth': ('f665206130e17a1c52f3db96', '0x1.0000000000000p-1'),
        'log_norm': ('10bc4a33204cfd5e078948dd', '0x0.0p+0'),
        'score_samples': ('2e94e20361380b77da53471e', '-0x1.1f374d0b6aa6ep+6'),
        'pdf_train': ('9e8dacbe60f1458feac4f801', '0x1.184df3600afb9p-3'),
        'pdf_grid': ('d98adc84368c032c0652365d', '0x1.7fb5453d4b12cp-116'),
        'weights': ('f9a22a49e3290f6011d1732c', '0x1.d151051b45937p-10'),
    },
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unweighted_results_are_bit_identical_to_the_pinned_ones(name: str) -> None:
    got = {key: _pin(value) for key, value in _outputs(name).items()}
    assert got == PINS[name]


if __name__ == "__main__":
    for case in sorted(CASES):
        print(f"    {case!r}: {{")
        for key, value in _outputs(case).items():
            print(f"        {key!r}: {_pin(value)!r},")
        print("    },")
