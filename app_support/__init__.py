"""The Streamlit app's support package: everything the pages (``app_pages/``) use but the
page scripts themselves.

Two sides (docs/architecture.md states the rule, ``tests/app/test_app_layers.py`` enforces
it). The compute side, which never imports Streamlit, holds the app's computations around the
library (:mod:`~app_support.compute`, :mod:`~app_support.lessons`,
:mod:`~app_support.mechanism`, :mod:`~app_support.prepare`, :mod:`~app_support.scoring`,
...), its figures and the captions that read them (:mod:`app_support.captions`). The
Streamlit side is :mod:`~app_support.cache` (``st.cache_data`` around those computations),
:mod:`~app_support.widgets` (URL-bound widgets, error reporting),
:mod:`~app_support.sections` (page sections), :mod:`~app_support.present` (page
configuration, style, presentation mode) and :mod:`app_support.live_lesson.mount`.
"""
