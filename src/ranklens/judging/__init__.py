"""Building the ground truth: label sources, their agreement, and what it does to results.

Submodules (imported on first use; this package imports nothing):
:mod:`ranklens.judging.agreement` (Cohen's and Fleiss' kappa, Krippendorff's alpha,
per query and overall), :mod:`ranklens.judging.stability` (the ordering of systems
under two sets of judgments) and :mod:`ranklens.judging.ppi` (prediction-powered
inference: many cheap labels plus a few human ones).
"""
