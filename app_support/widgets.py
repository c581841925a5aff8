"""Widgets whose state lives in the URL, the shared estimator controls, and error display.

Every control is created with ``bind="query-params"`` and a short ``key`` (the query
parameter's name), so a copied link reproduces the view exactly, seed included; values at
their default are left out of the URL to keep it short. Streamlit writes an option's
*displayed* label into the URL, so the labels of bound choices are short codes (``thin``,
``robust``); the long description goes in the help or a caption. The keys are named in
:mod:`app_support.keys`, what the controls offer in :mod:`app_support.choices`.
"""

from __future__ import annotations

import hashlib
import math
import shlex
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from momkde_core.bandwidth import n_blocks_for
from momkde_core.methods import ALIASES, METHODS, method_label
from momkde_core.synthetic import SCHEMES

from .captions.blocks import auto_formula, guide_note
from .captions.your_data import sample_banner
from .choices import (
    ASSETS,
    BANDWIDTH_RULES,
    H_RANGE,
    KERNEL_CHOICES,
    MAX_SHARE,
    SAMPLE_LESSONS,
    SCHEME_CODES,
    SCHEME_LABELS,
    SOURCE_CODES,
    UPLOAD,
    block_options,
)
from .compute import COMPARED_METHODS, DEFAULT_METHODS, Settings
from .keys import ESTIMATOR as KEY
from .keys import YOUR_DATA
from .scoring import pointer_to_cli, size_text
from .tables import MAX_LABEL_VALUES, label_values


def url(key: str) -> dict[str, str]:
    """Keyword arguments that bind a widget to the query parameter ``key``."""
    return {"key": key, "bind": "query-params"}


def url_choice(
    key: str, default: Hashable, codes: Mapping[Hashable, str] | None = None
) -> dict[str, object]:
    """Keyword arguments of a segmented control bound to the query parameter ``key``
    (:func:`url`) that always holds a value: ``required`` (Streamlit's default lets a click
    on the option already chosen empty the control, which wrote ``key=`` into the URL) and
    its ``default``, or the option a link names in another case.

    Parameters
    ----------
    key : str
        The query parameter.
    default : hashable
        The option chosen when the link names none.
    codes : mapping, optional
        Each option's code, as the control shows it and the URL holds it (its
        ``format_func``); without it, links are read as Streamlit reads them.

    Returns
    -------
    kwargs : dict
        ``key``, ``bind``, ``required`` and ``default``.

    Notes
    -----
    Links made before the codes hold the labels shown then ("CV", "Scott"), which
    Streamlit drops as unknown: on the session's first run, a link's value that is an
    option's code but for its case opens that option (as the control's default, so no value
    is set through the session state beside a default). Streamlit drops the old label from
    the address bar; the code reaches it at the next change of the choice (as the methods'
    old labels: :func:`methods_select`).

    Examples
    --------
    >>> url_choice("Smode", "auto")
    {'key': 'Smode', 'bind': 'query-params', 'required': True, 'default': 'auto'}
    """
    return {**url(key), "required": True, "default": _linked_option(key, default, codes)}


def _linked_option(key: str, default: Hashable, codes: Mapping[Hashable, str] | None) -> Hashable:
    """The option the link's ``key`` names in another case than its code, on the session's
    first run (the control not yet in the session state); else ``default``."""
    linked = st.query_params.get(key)
    if not codes or key in st.session_state or linked is None or linked in codes.values():
        return default  # (a code itself: Streamlit reads it)
    by_code = {code.casefold(): option for option, code in codes.items()}
    return by_code.get(linked.casefold(), default)


@contextmanager
def user_errors() -> Iterator[None]:
    """Show a ValueError from the library as ``st.error`` with its message (no traceback),
    so a bad parameter or file leaves the rest of the page working."""
    try:
        yield
    except ValueError as err:
        st.error(f"{err}", icon=":material/error:")


def show_warnings(messages: Iterable[str], container=st) -> None:
    """The warnings a computation returned with its result (the library's, recorded while it
    ran: :class:`~app_support.compute.Bandwidth`), as ``st.warning`` in ``container``."""
    for message in messages:
        container.warning(message, icon=":material/warning:")


def upload_limit_bytes() -> int:
    """The largest upload, in bytes: ``server.maxUploadSize`` of ``.streamlit/config.toml``
    (megabytes of 2^20 bytes, as Streamlit counts them; 200 by default)."""
    return int(st.get_option("server.maxUploadSize")) * 2**20


def unless_held(key: str, **default: object) -> dict[str, object]:
    """``default`` (a widget's default: ``value=``, ``index=``...) unless the session state
    already holds the widget's value: Streamlit warns when a widget gets both (the held
    value then wins anyway)."""
    return {} if key in st.session_state else default


def reset_on_change(marker: str, identity: str, defaults: dict[str, object]) -> None:
    """When ``identity`` (say, the file's) differs from the one the session state holds under
    ``marker``, set the widgets of ``defaults`` (key: value) to those values.

    Setting their session state (not just dropping it) is what makes the browser show the new
    choices: a dropped key left the old file's values on screen (the columns, and the label of
    the outliers) while the script used the new defaults. The first identity of a session
    keeps what its URL says (a shared link).
    """
    if st.session_state.get(marker) not in (None, identity):
        st.session_state.update(defaults)
    st.session_state[marker] = identity


def upload_digest(upload: UploadedFile, key: str) -> str:
    """The SHA-256 of the uploaded file ``upload``, computed once per upload and kept under
    ``key`` with its file id (a rerun would hash the whole file again, which takes long on
    the largest uploads)."""
    known = st.session_state.get(key)
    if known is not None and known[0] == upload.file_id:
        return known[1]
    digest = hashlib.sha256(upload.getvalue()).hexdigest()
    st.session_state[key] = (upload.file_id, digest)
    return digest


def scheme_select(container=st, schemes: tuple[str, ...] = SCHEMES) -> str:
    """The contamination scheme (the paper's four, or none), described under the picker."""
    scheme = container.selectbox(
        "Contamination scheme",
        schemes,
        format_func=SCHEME_CODES.get,
        **url(KEY.scheme),
        help="How the outliers are drawn (paper, section 5). Inliers: "
        "0.5 N(0, 0.5) + 0.5 N(6, 0.5); N(mean, standard deviation).",
    )
    container.caption(SCHEME_LABELS[scheme])
    return scheme


#: Links made before the methods had codes hold their display labels ("MoM-KDE (S rule, CV h)");
#: links made before a method was renamed hold its former code (the registry's ALIASES) or,
#: older still, its former label.
_METHOD_OF_LABEL: dict[str, str] = {
    **{m.label: name for name, m in METHODS.items()},
    **ALIASES,
    "MoM-KDE (auto)": "mom_kde",
}


def methods_select(
    container=st,
    options: tuple[str, ...] = COMPARED_METHODS,
    default: tuple[str, ...] = DEFAULT_METHODS,
    help: str | None = None,
) -> list[str]:
    """The methods to show, picked by their codes, which the URL holds: the method keys
    (``kde``, ``mom_kde``, ``rkde``, ``spkde``, ``screened_kde``, as ``momkde score`` names them; the sweeps add
    ``mom_kde_rule``, ``mom_kde_oracle``...). The figures' legends give the full names, and the
    help (``help``, then each code's name) explains them.

    A link that still holds display labels or a method's former code (the widget would drop
    them as unknown) selects the methods they name: on the first run, their codes are set as the widget's value. Streamlit
    drops the old labels from the address bar and writes the codes at the next change of the
    choice. An empty choice is returned as it is: each page decides what that means.
    """
    linked = st.query_params.get_all(KEY.methods)
    legacy = KEY.methods not in st.session_state and any(
        value in _METHOD_OF_LABEL for value in linked
    )
    if legacy:
        st.session_state[KEY.methods] = [
            m for m in (_METHOD_OF_LABEL.get(v, v) for v in linked) if m in options
        ]
    described = ", ".join(f"{m}: {method_label(m)}" for m in options)
    return list(
        container.multiselect(
            "Methods",
            options,
            **url(KEY.methods),
            **({} if legacy else {"default": list(default)}),
            help=(help + " " if help else "") + described + ".",
        )
    )


def _linked_int(key: str) -> int | None:
    """An integer query parameter of the link, or None (absent or not a number)."""
    try:
        return int(st.query_params[key])
    except (KeyError, ValueError):
        return None


def estimator_controls(
    container,
    n: int,
    n_outliers: int | Callable[[int], int] | None,
    default_blocks: int = 21,
    min_share: float = 0.0,
    true_share: float | None = None,
    top=None,
    bandwidth_of: Callable[[str, str, int, float], float] | None = None,
) -> Settings:
    """The stated outlier share, bandwidth, kernel, S and seed, shared by the data pages:
    :func:`share_kernel_seed` in ``container``, then :func:`bandwidth_and_blocks` in ``top``
    (default: ``container``; side by side when it is another one: above the figure).

    ``n`` (the points fitted) bounds the S slider, so the theory's guide S > 2|O| is
    reachable for every share below 1/2; ``n_outliers`` (when known) says whether S meets it:
    a number, or a function of the seed when the rows fitted are a sample drawn with that seed
    (its count of labelled outliers, not the whole file's, is what the guide compares S with).
    ``min_share`` is the smallest share offered: 0 (no outliers: S = 1, the KDE) where the
    page only draws, above 0 where the share is also what a detector flags. ``true_share``
    (a synthetic sample's known share): ε follows it unless the user states another.
    ``bandwidth_of(rule, kernel, seed, eps)`` (when given) computes the rule's h, which the
    h slider then shows, disabled.
    """
    eps, kernel, seed = share_kernel_seed(container, min_share, true_share)
    if callable(n_outliers):
        n_outliers = n_outliers(seed)
    return bandwidth_and_blocks(
        container if top is None else top,
        n,
        n_outliers,
        eps,
        kernel,
        seed,
        default_blocks=default_blocks,
        true_share=true_share,
        bandwidth_of=bandwidth_of,
        side_by_side=top is not None and top is not container,
    )


def share_kernel_seed(
    container, min_share: float = 0.0, true_share: float | None = None
) -> tuple[float, str, int]:
    """The stated outlier share ε, the kernel and the seed, in ``container`` (the sidebar).

    ``true_share`` (a synthetic sample's known share): ε follows it unless the user ticks
    "State a different share" (``epsfree``; a link holding ``eps`` ticks it).
    """
    help_eps = (
        "The one knob a user states (as for IsolationForest or LOF): it sets S "
        "auto = 2⌈εn⌉+1, what the robust h trims, SPKDE's share, the screened KDE's screen"
        + (" and the share of rows flagged" if min_share > 0 else "")
        + ". No labels are read."
    )
    free = True
    if true_share is not None:
        if KEY.eps_free not in st.session_state and KEY.eps in st.query_params:
            st.session_state[KEY.eps_free] = True  # a link from before the switch states ε
        free = container.checkbox(
            "State a different share ε than the true one",
            **url(KEY.eps_free),
            help="Off: ε is the true outlier ratio. On: state another share, as a user who "
            "does not know it would. " + help_eps,
        )
    if free:
        eps = container.slider(
            "Expected share of outliers ε",
            min_share,
            MAX_SHARE,
            0.1,
            0.01,
            **url(KEY.eps),
            help=help_eps,
        )
    else:
        eps = float(true_share)
        container.caption(f"ε = {eps:g}, the true outlier ratio.")
    kernel = container.selectbox(
        "Kernel", KERNEL_CHOICES, **url(KEY.kernel), help="SPKDE needs the Gaussian kernel."
    )
    seed = int(container.number_input("Seed", 0, 10_000, 0, 1, **url(KEY.seed)))
    return float(eps), kernel, seed


def bandwidth_and_blocks(
    top,
    n: int,
    n_outliers: int | None,
    eps: float,
    kernel: str,
    seed: int,
    default_blocks: int = 21,
    true_share: float | None = None,
    bandwidth_of: Callable[[str, str, int, float], float] | None = None,
    side_by_side: bool = False,
) -> Settings:
    """The h and S controls in ``top`` (two columns when ``side_by_side``), and the settings
    they give with ``eps``, ``kernel`` and ``seed``.

    The defaults are the library's robust ones: S "auto" (2 ceil(eps n) + 1, as
    ``MoMKDE(n_blocks="auto")``) and the "robust" bandwidth for the stated share eps. The S
    slider (log-spaced values) is always shown: in "auto" it is disabled at S auto and not
    bound to the URL, and "manual" starts from ``default_blocks``, where a link holding no S
    opens; the h slider likewise shows the rule's h (``bandwidth_of``), and by hand starts
    from the robust h. S's caption says whether S meets the guide
    S > 2|O| (:func:`~app_support.captions.blocks.guide_note`); a warning says when S auto misses it because the stated ε
    is below the ``true_share`` of a synthetic sample.
    """
    h_col, s_col = top.columns(2, gap="large") if side_by_side else (top, top)
    bandwidth = _bandwidth_control(h_col, kernel, seed, eps, bandwidth_of)
    blocks, auto = _blocks_control(s_col, n, n_outliers, eps, default_blocks)
    # (S manual below the guide is the user's choice: its caption says so, without a warning)
    if auto and true_share is not None and eps < true_share and blocks <= 2 * (n_outliers or 0):
        top.warning(
            f"S auto = 2⌈εn⌉+1 = {blocks} follows the stated share ε = {eps:g}, not the true "
            f"ratio {true_share:g}, and misses the guide S > 2|O| = {2 * n_outliers}: state "
            "a larger ε, or let ε follow the true ratio.",
            icon=":material/warning:",
        )
    return Settings(
        bandwidth=bandwidth,
        kernel=kernel,
        n_blocks=int(blocks),
        contamination=float(eps),
        seed=seed,
        auto_blocks=auto,
    )


def _bandwidth_control(
    h_col,
    kernel: str,
    seed: int,
    eps: float,
    bandwidth_of: Callable[[str, str, int, float], float] | None,
) -> str | float:
    """The bandwidth rule and the h slider (shown when h is set by hand, or when
    ``bandwidth_of`` gives the rule's h, which it then shows, disabled): the rule's name, or
    the slider's h."""
    mode = (
        h_col.segmented_control(
            "Bandwidth h",
            list(BANDWIDTH_RULES),
            format_func=BANDWIDTH_RULES.get,
            **url_choice(KEY.h_mode, "robust", BANDWIDTH_RULES),
            help="robust: the h with the best trimmed leave-own-block-out likelihood "
            "(a spike of outliers within the stated share ε cannot capture it; a cluster "
            "beyond it, such as many placed outliers, can pull it down). cv: the paper's "
            "cross-validation of the plain KDE (a spike captures it). scott: Scott's rule. "
            "slider: h by hand. "
            "The same h is used for every estimator but the screened "
            "KDE, which cross-validates its own on the rows it keeps "
            "(the slider's h applies to it too).",
        )
        or "robust"
    )
    if mode != "manual" and bandwidth_of is None:
        return mode
    if mode != "manual":
        # the rule's h, shown on a slider that is not bound to the URL (a disabled control's
        # value is no choice of the user's: a link holds the rule, not its h)
        h_auto = bandwidth_of(mode, kernel, seed, eps)
        h_col.slider(
            f"h ({BANDWIDTH_RULES[mode]}: {h_auto:.3g})",
            H_RANGE[0],
            max(H_RANGE[1], math.ceil(h_auto)),  # (a rule's h beyond the range is shown too)
            value=max(H_RANGE[0], h_auto),
            format=H_FORMAT,
            step=0.01,
            disabled=True,  # (no key: a new h is a new widget, shown at its value)
            help='Choose "slider" to set h by hand; it starts from the robust h.',
        )
        return mode
    # by hand, from the robust h of this sample: its default, so that a link holding no h
    # opens where the page did (a value set in the session state would reach the URL only
    # after a second run)
    start = _on_slider(bandwidth_of("robust", kernel, seed, eps)) if bandwidth_of else 0.3
    return h_col.slider(
        "h",
        *H_RANGE,
        step=0.01,
        format=H_FORMAT,
        **unless_held(KEY.h, value=start),
        **url(KEY.h),
        help="The bandwidth of every estimator (the screened KDE's too); it starts from the "
        "robust h.",
    )


#: The h sliders show h as the label and the page's sentences do (3 significant digits).
H_FORMAT = "%.3g"


def _on_slider(h: float) -> float:
    """``h`` as the by-hand h slider can hold it: within :data:`H_RANGE`, unrounded, so that
    switching to by-hand keeps the rule's fit until the slider moves (a move lands on its
    0.01 steps)."""
    return min(H_RANGE[1], max(H_RANGE[0], float(h)))


def _blocks_control(
    s_col, n: int, n_outliers: int | None, eps: float, default_blocks: int
) -> tuple[int, bool]:
    """S's mode and slider (log-spaced values, disabled and held at S auto in "auto"), with
    a caption saying whether S meets the guide S > 2|O|: S, and whether it is S auto."""
    auto_blocks = n_blocks_for(n, eps)
    auto = (
        s_col.segmented_control(
            "S, number of blocks of MoM-KDE",
            ["auto", "manual"],
            **url_choice(KEY.s_mode, "auto"),
            help="auto: S = 2⌈εn⌉+1, the fewest blocks that "
            "the expected outliers cannot hold a majority of. The screened KDE's "
            "screen always uses S auto.",
        )
        or "auto"
    ) == "auto"
    default = min(default_blocks, max(n, 2))
    if auto:
        # S auto on a slider that is not bound to the URL (a link holds "auto", not its S)
        s_col.select_slider(
            f"S (auto, ε = {eps:g}: {auto_blocks})",
            block_options(n, auto_blocks),
            value=auto_blocks,
            disabled=True,  # (no key: a new S auto is a new widget, shown at its value)
            help=f'Choose "manual" to move it; it starts from {default}.',
        )
        blocks = auto_blocks
    else:
        held = st.session_state.get(KEY.blocks)
        options = block_options(n, auto_blocks, default, _linked_int(KEY.blocks), held)
        if held is not None and held not in options:
            st.session_state[KEY.blocks] = min(options, key=lambda v: abs(v - held))
        blocks = s_col.select_slider(
            f"S (auto would be {auto_blocks})",
            options,
            **unless_held(KEY.blocks, value=default),
            **url(KEY.blocks),
            help=f"S = 1 is the plain KDE. At most one block per point. It starts from "
            f"{default}, where a link that holds no S opens too.",
        )
    s_col.caption(
        f"S = {blocks}"
        + (auto_formula(blocks, eps, n) if auto else "")
        + " (log scale)"
        + guide_note(blocks, n_outliers)
    )
    return blocks, auto


def outlier_labels(
    side, identity: str, data: pd.DataFrame, label_col: Hashable | None
) -> np.ndarray | None:
    """The label's outliers (the value chosen, by default the rarest class, reset when the
    file or the label column changes), or None without a usable label column."""
    if label_col is None:
        return None
    if label_values(data[label_col]) > MAX_LABEL_VALUES:
        st.warning(
            f"{label_col!r} has {label_values(data[label_col]):,} distinct values: a label names a few "
            "classes (such as 0 / 1 or ok / fraud), so no AUC is computed.",
            icon=":material/warning:",
        )
        return None
    counts = data[label_col].dropna().astype(str).value_counts()
    values = sorted(counts.index)
    rarest = counts.idxmin()  # outliers are the minority, by default
    if st.session_state.get(YOUR_DATA.label_of) not in (None, (identity, label_col)) or (
        YOUR_DATA.outlier in st.session_state and st.session_state[YOUR_DATA.outlier] not in values
    ):
        st.session_state[YOUR_DATA.outlier] = rarest  # a new file or label: its rarest class
    st.session_state[YOUR_DATA.label_of] = (identity, label_col)
    outlier_value = side.selectbox(
        "Label of the outliers",
        values,
        **url(YOUR_DATA.outlier),
        **unless_held(YOUR_DATA.outlier, index=values.index(rarest)),
    )
    return (data[label_col].astype(str) == outlier_value).to_numpy()


def _upload_replaces_the_sample() -> None:
    """The uploader's callback: a file uploaded becomes the page's data."""
    if st.session_state.get(YOUR_DATA.upload) is not None:
        st.session_state[YOUR_DATA.sample] = UPLOAD


def _columns_of(sample: str) -> set[str]:
    """The column names of the bundled ``sample`` (its header line)."""
    return set(pd.read_csv(ASSETS / sample, nrows=0).columns)


def choose_file(side, limit: int, banner) -> tuple[bytes, str, str]:
    """The data picker: a bundled sample (its lesson in ``banner``), by default the first, or
    the upload, which replaces the sample when a file is uploaded; the file's bytes, name and
    identity (the sample's name or the upload's SHA-256). Stops the page on the upload without
    a file, or with a file over ``limit`` bytes (pointing to ``momkde score``).

    The URL holds the picker's short code (:data:`SOURCE_CODES`); a link made before the codes
    holds the sample's file name, and one made with an upload before the page opened on a
    sample holds no source but columns the first sample does not have: both open what they
    were made with (a link on the first sample holds no source either: its default)."""
    samples = [name for name in SAMPLE_LESSONS if (ASSETS / name).exists()]
    if YOUR_DATA.sample not in st.session_state:
        linked = st.query_params.get(YOUR_DATA.sample)
        if linked in samples:
            st.session_state[YOUR_DATA.sample] = linked
        elif (
            linked is None
            and samples
            and not _columns_of(samples[0]).issuperset(
                column
                for key in (YOUR_DATA.plot, YOUR_DATA.score, YOUR_DATA.label)
                for column in st.query_params.get_all(key)
            )
        ):  # no source, but columns the sample opened on does not have: an upload's link
            st.session_state[YOUR_DATA.sample] = UPLOAD
    source = side.selectbox(
        "Data", [*samples, UPLOAD], format_func=SOURCE_CODES.get, **url(YOUR_DATA.sample)
    )
    side.caption(
        "; ".join(
            f"**{SOURCE_CODES[name]}**: {name}, {SAMPLE_LESSONS[name][0]}" for name in samples
        )
        + "; **upload**: your own CSV, uploaded below."
    )
    upload = side.file_uploader(
        f"CSV file (up to {size_text(limit)})",
        key=YOUR_DATA.upload,
        on_change=_upload_replaces_the_sample,
    )
    side.caption(
        "A larger file: `momkde score FILE --out scored.csv` on the command line scores every "
        "row of a file of any size, read in chunks."
    )
    if source == UPLOAD:
        raw = upload.getvalue() if upload is not None else None
        file_name = upload.name if upload is not None else ""
    else:
        raw = (ASSETS / source).read_bytes()
        file_name = source
        banner.info(sample_banner(source), icon=":material/lightbulb:")
    if raw is None:
        if set(st.query_params) & set(YOUR_DATA.per_file):
            st.info(
                "This link was made with an uploaded file. Files are not part of links (they stay on the "
                "computer that uploaded them): upload the same file and the link's columns and settings apply.",
                icon=":material/link:",
            )
        st.info("Upload a CSV in the sidebar, or pick one of the samples in its Data list.")
        st.stop()
    if len(raw) > limit:  # Streamlit's uploader refuses these; a changed limit may let one through
        st.error(
            f"The file has {size_text(len(raw))}, over this page's limit of {size_text(limit)}. "
            + pointer_to_cli(shlex.join(["momkde", "score", file_name, "--out", "scored.csv"])),
            icon=":material/error:",
        )
        st.stop()
    return raw, file_name, source if source != UPLOAD else upload_digest(upload, YOUR_DATA.identity)
