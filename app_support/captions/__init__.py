"""Captions computed from what a figure shows: who wins here, by how much, and why.

A fixed caption ("the bump disappears") contradicts the figure whenever MoM-KDE fails, and
it fails in known ways: too few blocks for the outliers, a bandwidth captured by a spike,
outliers on an inlier mode, blocks too small to estimate anything, or no outliers at all.
Each function here returns plain sentences from the numbers the page already has; none
draws, none imports the estimators. The modules: ``density`` (Explore's and Your data's
density figures), ``your_data`` (Your data's other notes), ``columns`` (what Your data's
sidebar says of a file's columns), ``blame`` (why a flagged row is flagged), ``sweep`` (the
experiments' figures of the Sweep and Real data pages), ``learn`` (Example 1's figures on
Home and Learn, Learn's measured table, curve and screen, and timings), ``median`` (the median at work and the construction's frames), ``coinciding`` (curves and lines that would hide
another) and ``text`` (lists and runs of ratios in sentences).
"""
