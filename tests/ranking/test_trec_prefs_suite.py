"""trec_eval 10's own preference tests, reproduced line for line: an extra check.

Reads ``../shared/conformance/trec_eval`` (never copied into the project) where it
lies beside the repository, and skips saying so where it does not; the evidence a
plain clone checks is ``tests/conformance/test_trec_eval_prefs.py``.
"""

from __future__ import annotations

import pytest

from ranklens.io import read_trec_run
from ranklens.io.prefs import read_prefs, read_qrels_prefs
from ranklens.ranking.prefs import evaluate_prefs
from tests.helpers import CONFORMANCE, NEEDS_CONFORMANCE

#: output file -> (reader, judgments, run); all with -q -m all_prefs
CASES = {
    "out.test.prefs": (read_prefs, "prefs.test", "prefs.results.test"),
    "out.test.prefs[comments]": (read_prefs, "prefs.comment.test", "prefs.results.test"),
    "out.test.qrels_prefs": (read_qrels_prefs, "qrels.test", "results.test"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@NEEDS_CONFORMANCE
def test_trec_eval_prefs_output_reproduced(case: str) -> None:
    reader, judgments, run_file = CASES[case]
    run = read_trec_run(CONFORMANCE / run_file)
    table = run.to_arrow()
    result = evaluate_prefs(
        reader(CONFORMANCE / judgments),
        table["query"].to_numpy(zero_copy_only=False),
        table["doc"].to_numpy(zero_copy_only=False),
        table["score"].to_numpy(),
    )
    want = (CONFORMANCE / case.split("[")[0]).read_text(encoding="utf-8").splitlines()
    assert result.trec_lines(per_query=True, runid=run.name) == want


@NEEDS_CONFORMANCE
def test_trec_eval_qrels_jg_output_reproduced() -> None:
    """out.test.qrels_jg: map, P and Rprec_mult averaged over qrels.123's judgment
    groups (trec_eval -q -m qrels_jg -R qrels_jg qrels.123 results.test)."""
    import warnings

    from ranklens.errors import RanklensWarning
    from ranklens.io.prefs import read_qrels_jg
    from ranklens.ranking.judgment_groups import evaluate_avgjg
    from tests.conformance.trec_output import close, read_values

    names = {"map": "map_avgjg"} | {
        f"P.{c}": f"P_avgjg_{c}" for c in (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    }
    names |= {f"Rprec_mult.{m / 5:.1f}": f"Rprec_mult_avgjg_{m / 5:.2f}" for m in range(1, 11)}
    want = read_values((CONFORMANCE / "out.test.qrels_jg").read_text(encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        got = evaluate_avgjg(
            read_qrels_jg(CONFORMANCE / "qrels.123"),
            read_trec_run(CONFORMANCE / "results.test"),
            list(names),
            profile="trec_eval",
        )
    for metric, trec_name in names.items():
        for q, value in want[trec_name].items():
            assert close(got[metric][q], value, 5e-5), (trec_name, q)
