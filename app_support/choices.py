"""What the app's controls offer: schemes, kernels, bandwidth rules, the h slider's range, the
highest outlier share and the values of the S slider.

Plain values and functions, without Streamlit: the widgets show them, and the computations and
captions that must agree with a control (the ε a note suggests, the S values it can reach)
read them from here.
"""

from __future__ import annotations

import math
from pathlib import Path

#: The by-hand h slider's range: wide enough for the robust h of a 2-D tophat sample (its
#: finite reach needs h near 3 where a Gaussian's is below 1); a rule's h beyond it widens its
#: own (disabled) slider.
H_RANGE: tuple[float, float] = (0.02, 4.0)
#: Short codes shown in the scheme pickers (and written to the URL).
SCHEME_CODES: dict[str, str] = {
    "uniform": "uniform",
    "regular_gaussian": "gaussian",
    "thin_gaussian": "thin",
    "adversarial": "adversarial",
    "none": "none",
}
#: What each scheme is (paper, section 5; N(mean, standard deviation)).
SCHEME_LABELS: dict[str, str] = {
    "uniform": "(a) uniform outliers on [−3, 9]",
    "regular_gaussian": "(b) Gaussian outliers N(3, 0.5), between the modes",
    "thin_gaussian": "(c) thin Gaussian outliers N(3, 0.01): a spike between the modes",
    "adversarial": "(d) adversarial: a spike N(0, 0.01) on an inlier mode",
    "none": "no outliers",
}
#: The highest outlier share offered: at 1/2 no median can tell outliers from inliers, and
#: S > 2|O| would need more blocks than points.
MAX_SHARE = 0.45
#: The bandwidth rules of the h control: each option by the code the control shows and the URL
#: holds (Streamlit writes the shown label into the URL). "manual" (by hand, as the live
#: figure's release sets it) shows as "slider"; links made before the codes hold "CV" or
#: "Scott", read as these (:func:`app_support.widgets.linked_choice`).
BANDWIDTH_RULES: dict[str, str] = {
    "robust": "robust",
    "cv": "cv",
    "scott": "scott",
    "manual": "slider",
}
#: The kernels of the kernel picker.
KERNEL_CHOICES: tuple[str, ...] = (
    "gaussian",
    "tophat",
    "epanechnikov",
    "linear",
    "cosine",
    "exponential",
)


def block_options(n: int, *extra: int | None) -> list[int]:
    """The values the S slider offers: 20 per decade from 1 to ``n`` (a log scale: 1 to 2000
    on a narrow sidebar), plus ``extra`` values that must be reachable (S auto, a link's S).

    Parameters
    ----------
    n : int
        The points fitted: the largest S (one point per block).
    *extra : int or None
        Values to offer too, when between 1 and ``n`` (None is skipped).

    Returns
    -------
    options : list of int
        The values, sorted.

    Examples
    --------
    >>> block_options(10, 7)
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> len(block_options(2000))
    57
    """
    top = max(n, 2)
    steps = int(20 * math.log10(top)) + 1
    values = {min(top, round(10 ** (k / 20))) for k in range(steps)} | {1, top}
    values |= {int(v) for v in extra if v is not None and 1 <= int(v) <= top}
    return sorted(values)


#: The bundled samples of Your data (assets/make_samples.py makes them).
ASSETS = Path(__file__).resolve().parent.parent / "assets"
UPLOAD = "(upload a file)"
#: What each bundled sample was made to show, in a few words (named under the picker), and
#: how (shown with it, then what it shows with the page's settings:
#: :func:`~app_support.captions.your_data.sample_outcome`); assets/make_samples.py makes them.
#: The page opens on the first.
SAMPLE_LESSONS = {
    "sensor_glitches.csv": (
        "where MoM-KDE wins",
        "A sensor stuck at one value for 60 readings makes a tight cluster: the KDE grows a "
        "hill on it, which lifts the glitches toward the inliers' density, while the cluster "
        "sits in too few blocks to move MoM-KDE's median.",
    ),
    "spike_on_a_mode.csv": (
        "where every density method fails",
        "The outliers are a spike on top of an inlier mode (the paper's adversarial scheme): "
        "they sit where the inliers are densest, so any density, robust or not, scores them "
        "as normal points.",
    ),
    "card_transactions.csv": (
        "a real-looking table",
        "The id is left out of the scores, the timestamp is scored as days and the merchant "
        "and country as categories, the label is found by its name; card-testing bursts and "
        "large night purchases are the fraud.",
    ),
    "staff.csv": (
        "text columns scored as categories",
        "Interns paid a manager's salary and cities of another country: each value is "
        "common, only the pair (role with salary, country with city) is odd, so only a "
        "density over the text columns as well as the numbers finds them; the employee id "
        "is left out.",
    ),
}
#: The Data picker's short codes (written to the URL) of the samples and of the upload.
SOURCE_CODES = {
    "sensor_glitches.csv": "sensors",
    "spike_on_a_mode.csv": "spike",
    "card_transactions.csv": "cards",
    "staff.csv": "staff",
    UPLOAD: "upload",
}
