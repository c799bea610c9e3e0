"""Credit against Kato & Manabe's ``interleaving`` package (the committed outputs of
``tests/online/peers/make_interleaving_reference.py``; the package is GitHub-only, so
no test calls it live): for random rankings, lists its own samplers made and random
clicks, ranklens credits team-draft, balanced and optimized lists with the same scores,
and its marginalised probabilistic outcome is the package's enumeration over every
assignment (Hofmann et al. 2011)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from ranklens.online.interleaving import Interleaving, credit

CASES = json.loads(
    (Path(__file__).parent / "peers" / "interleaving_kato.json").read_text(encoding="utf-8")
)["cases"]


def _lists(case: dict[str, Any]) -> Interleaving:
    docs = case["docs"]

    def rank(lst: list[str]) -> list[int]:
        return [lst.index(d) + 1 if d in lst else 0 for d in docs]

    teams = case.get("teams")
    cols: dict[str, Any] = {
        "query": ["q"] * len(docs),
        "position": list(range(1, len(docs) + 1)),
        "doc": docs,
        "team": ["AB"[t] for t in teams] if teams else [""] * len(docs),
        "rank_A": rank(case["a"]),
        "rank_B": rank(case["b"]),
    }
    if "p" in case:
        cols["p_A"] = [p[0] for p in case["p"]]
        cols["p_B"] = [p[1] for p in case["p"]]
    return Interleaving.from_arrow(
        pa.table(cols),
        method=case["method"],
        k=case["k"],
        credit_function=case.get("credit_function", "linear"),
    )


def test_every_method_is_covered() -> None:
    assert {c["method"] for c in CASES} == {"team_draft", "balanced", "probabilistic", "optimized"}
    assert sum(any(c["clicks"]) for c in CASES) > 40


@pytest.mark.parametrize("i", range(len(CASES)))
def test_credit_matches_kato(i: int) -> None:
    case = CASES[i]
    out = credit(_lists(case), np.array(case["clicks"], dtype=bool))
    if case["method"] == "probabilistic":
        p_a, p_b = case["p_wins"]  # 0 and 0 without clicks
        assert out.outcome[0, 0] == pytest.approx(p_a - p_b, abs=1e-12)
    else:
        np.testing.assert_allclose(out.credit[0], case["scores"], rtol=1e-12, atol=1e-12)
