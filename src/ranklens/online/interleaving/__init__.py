"""Interleaving and multileaving: online comparisons of rankers from the clicks on
one list that mixes their results.

- :func:`interleave` (two rankers: ``team_draft``, ``balanced``, ``probabilistic``,
  ``optimized``) and :func:`multileave` (two or more: ``team_draft``,
  ``probabilistic``) build the lists shown, every query at once, deterministic from a
  seed (:mod:`ranklens.online.interleaving.methods`);
- :func:`credit` credits each ranker for the clicks on them
  (:mod:`ranklens.online.interleaving.outcomes`);
- :func:`analyze` counts wins, ties and losses per query or user and gives the
  preference :math:`\\Delta_{AB}` with its interval and a sign test, every pair of a
  multileaving corrected together (:mod:`ranklens.online.interleaving.analysis`);
- :func:`simulate_clicks` simulates users (cascade and position-based click models
  over qrels; :mod:`ranklens.online.interleaving.clicks`).

>>> from ranklens import Qrels, Run
>>> from ranklens.online.interleaving import analyze, credit, interleave, simulate_clicks
>>> qrels = Qrels.from_dict({f"q{i}": {"good": 1} for i in range(200)})
>>> better = Run.from_dict({f"q{i}": {"good": 2, "bad": 1} for i in range(200)}, name="A")
>>> worse = Run.from_dict({f"q{i}": {"bad": 2, "good": 1} for i in range(200)}, name="B")
>>> lists = interleave([better, worse], "team_draft", k=2, seed=0)
>>> clicks = simulate_clicks(lists, qrels, "perfect", seed=0)
>>> result = analyze(credit(lists, clicks), by="query")
>>> result.pairs[0].wins, result.pairs[0].losses, result.pairs[0].winner
(200, 0, 'A')
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.online.interleaving.analysis import InterleavingAnalysis, Preference, analyze
    from ranklens.online.interleaving.clicks import CLICK_MODELS, ClickModel, simulate_clicks
    from ranklens.online.interleaving.methods import (
        CREDIT_FUNCTIONS,
        INTERLEAVE_METHODS,
        MULTILEAVE_METHODS,
        Interleaving,
        interleave,
        multileave,
    )
    from ranklens.online.interleaving.outcomes import Outcomes, credit

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.online.interleaving.analysis": ("InterleavingAnalysis", "Preference", "analyze"),
        "ranklens.online.interleaving.clicks": ("CLICK_MODELS", "ClickModel", "simulate_clicks"),
        "ranklens.online.interleaving.outcomes": ("Outcomes", "credit"),
        "ranklens.online.interleaving.methods": (
            "CREDIT_FUNCTIONS",
            "INTERLEAVE_METHODS",
            "MULTILEAVE_METHODS",
            "Interleaving",
            "interleave",
            "multileave",
        ),
    },
)

__all__ = [
    "CLICK_MODELS",
    "CREDIT_FUNCTIONS",
    "INTERLEAVE_METHODS",
    "MULTILEAVE_METHODS",
    "ClickModel",
    "Interleaving",
    "InterleavingAnalysis",
    "Outcomes",
    "Preference",
    "analyze",
    "credit",
    "interleave",
    "multileave",
    "simulate_clicks",
]
