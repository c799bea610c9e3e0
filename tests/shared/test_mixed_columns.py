"""A column that mixes types is named, with an example row of each type and the fix,
not with pyarrow's "Expected bytes, got a 'int' object"."""

from __future__ import annotations

import numpy as np
import pytest

import ranklens
from ranklens.errors import InputError


def test_a_frame_whose_id_column_mixes_ints_and_text() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {"query": ["q1", "q2", 7, "q3"], "doc": list("abcd"), "relevance": [1, 0, 1, 1]},
        index=[10, 11, 12, 13],
    )
    with pytest.raises(InputError) as info:
        ranklens.Qrels.from_frame(df)
    assert str(info.value) == (
        "Qrels query column: the column mixes types (row 10 is text ('q1'); row 12 is an "
        "integer (7)); make it one type, e.g. text ids with df['query'].astype(str)."
    )
    assert "Expected bytes" not in str(info.value)


@pytest.mark.parametrize("make", [list, lambda v: np.array(v, dtype=object)])
def test_a_list_or_object_array_that_mixes_types(make: object) -> None:
    queries = make(["q1", None, 2.5, "q2"])  # type: ignore[operator]
    with pytest.raises(InputError, match=r"row 0 is text \('q1'\); row 2 is a number \(2.5\)"):
        ranklens.Qrels(queries, list("abcd"), [1, 0, 1, 1])
