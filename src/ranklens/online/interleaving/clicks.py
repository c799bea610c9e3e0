r"""Simulated users clicking on interleaved lists (for tests, power estimates and
fidelity checks), seeded and vectorised over impressions.

A :class:`ClickModel` gives, per relevance grade ``g`` (``0 .. G-1``), the probability
of a click on an examined document, ``click[g]``, and of stopping after a click,
``stop[g]``.  A document's grade is its judgment in the qrels, clipped to ``[0, G - 1]``
(an integer part; unjudged documents and negative grades are grade 0).

``cascade`` (the dependent click model of Hofmann et al. 2011 and Guo et al. 2009):
the user examines the list top-down, clicks an examined document with ``click[g]``,
stops after a click with ``stop[g]``, else goes on.

``position`` (the position-based model, Craswell et al. 2008): position ``i`` is
examined with probability :math:`1 / i^\eta` (``eta``, default 1) whatever happened
above it, and clicked when examined with ``click[g]``; ``stop`` is not used.

The models of Hofmann, Whiteson & de Rijke (2011, 2013) for binary relevance are
:data:`CLICK_MODELS` ``perfect`` (click 0 / 1, stop 0 / 0), ``navigational`` (click
0.05 / 0.95, stop 0.2 / 0.9) and ``informational`` (click 0.4 / 0.9, stop 0.1 / 0.5),
for grades non-relevant / relevant; ``random`` (click 0.5 whatever the grade, never
stops) is the user of Radlinski & Craswell's (2013) fidelity check.

Random numbers: two per position of each impression (the click, then the stop or the
examination), uniforms ``2i`` and ``2i + 1`` of the stream whose key is
``fmix64(key(q, 0) + impression * 0x9E3779B97F4A7C15)`` with ``key`` the stream key of
:mod:`ranklens.online.interleaving._streams` under purpose ``"clicks"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import to_numpy
from ranklens._shared.hashing import _mix
from ranklens._shared.validate import check_choice, check_number
from ranklens.errors import InputError
from ranklens.online.interleaving._streams import stream_keys, uniforms
from ranklens.online.interleaving.methods import Interleaving

__all__ = ["CLICK_MODELS", "ClickModel", "simulate_clicks"]


@dataclass(frozen=True)
class ClickModel:
    """Click and stop probabilities per relevance grade (index = grade)."""

    click: tuple[float, ...]
    stop: tuple[float, ...]

    def __post_init__(self) -> None:
        for name in ("click", "stop"):
            values = getattr(self, name)
            if not isinstance(values, tuple) or not values:
                raise InputError(
                    f"ClickModel: {name} must be a non-empty tuple of probabilities, one per "
                    f"grade, got {values!r}."
                )
            for v in values:
                check_number(
                    f"every {name} probability",
                    v,
                    low=0,
                    high=1,
                    low_open=False,
                    high_open=False,
                    where="ClickModel",
                )
        if len(self.click) != len(self.stop):
            raise InputError(
                f"ClickModel: click and stop need one probability per grade each; got "
                f"{len(self.click)} and {len(self.stop)}."
            )


CLICK_MODELS: dict[str, ClickModel] = {
    "perfect": ClickModel(click=(0.0, 1.0), stop=(0.0, 0.0)),
    "navigational": ClickModel(click=(0.05, 0.95), stop=(0.2, 0.9)),
    "informational": ClickModel(click=(0.4, 0.9), stop=(0.1, 0.5)),
    "random": ClickModel(click=(0.5, 0.5), stop=(0.0, 0.0)),
}
KINDS = ("cascade", "position")
_IMPRESSION = np.uint64(0x9E3779B97F4A7C15)


def _grades(il: Interleaving, qrels: Any, n_grades: int) -> np.ndarray:
    from ranklens.ranking.data import Qrels

    if not isinstance(qrels, Qrels):
        raise InputError(
            f"simulate_clicks: qrels must be a ranklens.Qrels, got {type(qrels).__name__}."
        )
    t = qrels.to_arrow()
    sep = pa.scalar("\x1f", type=pa.large_string())
    key = pc.binary_join_element_wise(
        t.column("query").cast(pa.large_string()), t.column("doc").cast(pa.large_string()), sep
    )
    counts = np.diff(il.offsets)
    shown_q = il.query.take(pa.array(np.repeat(np.arange(len(il)), counts)))
    shown = pc.binary_join_element_wise(shown_q.cast(pa.large_string()), il.doc, sep)
    at = to_numpy(pc.index_in(shown, value_set=key.combine_chunks()), fill=-1)
    rel = np.asarray(qrels.relevance)
    g = np.where(at >= 0, rel[np.maximum(at, 0)], 0.0)
    return np.clip(np.floor(g), 0, n_grades - 1).astype(np.int64)


def simulate_clicks(
    interleaving: Interleaving,
    qrels: Any,
    model: str | ClickModel = "navigational",
    *,
    kind: str = "cascade",
    eta: float = 1.0,
    seed: int = 0,
) -> np.ndarray:
    """Clicks of simulated users on every impression of ``interleaving``: one boolean per
    shown document (aligned with ``interleaving.doc``), for :func:`credit`.

    ``model``: a :class:`ClickModel` or a name of :data:`CLICK_MODELS`; ``kind``:
    ``cascade`` or ``position`` (examination :math:`1 / i^{eta}`); ``seed``: an integer.

    >>> from ranklens import Qrels, Run
    >>> from ranklens.online.interleaving import interleave
    >>> qrels = Qrels.from_dict({"q": {"b": 1}})
    >>> a = Run.from_dict({"q": {"a": 2, "b": 1}}, name="A")
    >>> b = Run.from_dict({"q": {"b": 2, "a": 1}}, name="B")
    >>> il = interleave([a, b], k=2, seed=0)
    >>> il.to_pylist()[0]["docs"], simulate_clicks(il, qrels, "perfect").tolist()
    (['b', 'a'], [True, False])
    """
    if not isinstance(interleaving, Interleaving):
        raise InputError(
            "simulate_clicks: interleaving must be what interleave() or multileave() "
            f"returns, got {type(interleaving).__name__}."
        )
    if isinstance(model, str):
        check_choice("model", model, tuple(CLICK_MODELS), where="simulate_clicks")
        cm = CLICK_MODELS[model]
    elif isinstance(model, ClickModel):
        cm = model
    else:
        raise InputError(
            f"simulate_clicks: model must be a ClickModel or one of "
            f"{', '.join(map(repr, CLICK_MODELS))}, got {type(model).__name__}."
        )
    check_choice("kind", kind, KINDS, where="simulate_clicks")
    eta = check_number("eta", eta, low=0, low_open=False, where="simulate_clicks")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"simulate_clicks: seed must be an integer, got {seed!r}.")
    il = interleaving
    grade = _grades(il, qrels, len(cm.click))
    n = len(il)
    counts = np.diff(il.offsets)
    width = int(counts.max()) if n else 0
    rows = np.repeat(np.arange(n, dtype=np.int64), counts)
    pos = il.positions - 1
    # one stream per impression, keyed by its query and impression number
    u = np.zeros((n, 2 * max(width, 1)))
    if n:
        keys = stream_keys(il.query, 1, seed=int(seed), salt="clicks")
        with np.errstate(over="ignore"):
            keys = _mix(keys + il.impression.astype(np.uint64) * _IMPRESSION)
        u = uniforms(keys, 2 * max(width, 1))
    click_p = np.asarray(cm.click)[grade]
    stop_p = np.asarray(cm.stop)[grade]
    u_click = u[rows, 2 * pos]
    u_stop = u[rows, 2 * pos + 1]
    if kind == "position":
        examined = u_stop < (pos + 1.0) ** -eta
        return np.asarray(examined & (u_click < click_p))
    clicked = np.zeros(len(rows), dtype=bool)
    # cascade: a loop over the positions, every impression at once
    going = np.ones(n, dtype=bool)
    dense = np.full((n, max(width, 1)), -1, dtype=np.int64)
    dense[rows, pos] = np.arange(len(rows))
    for i in range(width):
        at = dense[:, i]
        live = going & (at >= 0)
        idx = at[live]
        c = u_click[idx] < click_p[idx]
        clicked[idx] = c
        stops = c & (u_stop[idx] < stop_p[idx])
        going[np.flatnonzero(live)[stops]] = False
    return clicked
