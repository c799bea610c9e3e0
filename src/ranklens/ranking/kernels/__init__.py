"""Vectorised ranking-metric kernels over a :class:`~ranklens.ranking.engine.Prepared` table.

``binary`` (precision, recall, AP, reciprocal rank, ...), ``graded`` (gains,
DCG/nDCG, RBP, ERR), ``trec`` (the rest of trec_eval's measures), ``order``
(ties-aware expectations); ``_segments`` holds the per-query segment sums they
share.  Each kernel is named by :mod:`ranklens.metrics.catalogue`, which
imports it on first use.
"""
