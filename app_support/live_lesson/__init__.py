"""Explore's live lesson: the 1-D figure and the strip of MoM-KDE's blocks at x₀, redrawn
in the browser at each pointer move of a drag and synced with the server on release.

:mod:`~app_support.live_lesson.payload` builds what the browser is sent (without Streamlit),
``live_lesson.js`` computes and draws the lesson by the library's rule (the module
docstring of ``payload`` says which), and :mod:`~app_support.live_lesson.mount` mounts the
component and writes its release into the page's controls.
"""
