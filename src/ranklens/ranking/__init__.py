"""The ranking core: one path from judgments and runs to per-query scores.

- :mod:`~ranklens.ranking.data`: :class:`Qrels` and :class:`Run`, the
  columnar tables of judgments and scored documents (ids encoded once);
- :mod:`~ranklens.ranking.conventions`: every switchable convention and the
  peer profiles (trec_eval, pytrec_eval, ranx, ...);
- :mod:`~ranklens.ranking.engine`: orders every ranking once
  (:func:`~ranklens.ranking.engine.order_rankings`) and joins it with the
  judgments into a :class:`~ranklens.ranking.engine.Prepared` table;
- :mod:`~ranklens.ranking.evaluation`: plans metric jobs and runs them
  (:func:`ranklens.evaluate`);
- :mod:`~ranklens.ranking.cutoffs`: metrics over many cutoffs and
  precision-recall curves, through the same jobs;
- :mod:`~ranklens.ranking.kernels`: the vectorised metric kernels.

The metric names, parameters and rules are declared in
:mod:`ranklens.metrics.catalogue`; the public entry points are re-exported
by :mod:`ranklens`.
"""
