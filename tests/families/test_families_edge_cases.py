"""Every public function of the classification, regression, clustering and
entity-resolution families, on the inputs an independent check found
mishandled: NaN (always an InputError, never a number), empty and
mismatched inputs, and a battery of odd inputs (one class, (n, 1) columns,
strings, objects, 3-d arrays, infinities) that must give a value or a
ranklens error, never another library's exception."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ranklens.classification as clf
import ranklens.clustering as clu
import ranklens.entity_resolution as er
import ranklens.regression as reg
from ranklens.errors import InputError, RanklensError

pytest.importorskip("sklearn")
pytest.importorskip("scipy")

NAN = float("nan")

# functions of two label arrays (true, predicted)
LABEL_PAIRS: dict[str, Callable[[Any, Any], Any]] = {
    "accuracy": clf.accuracy,
    "confusion_matrix": clf.confusion_matrix,
    "confusion_counts": clf.confusion_counts,
    "precision": lambda t, p: clf.precision(t, p, zero_division=0.0),
    "recall": lambda t, p: clf.recall(t, p, zero_division=0.0),
    "f1": lambda t, p: clf.f1(t, p, zero_division=0.0),
    "fbeta": lambda t, p: clf.fbeta(t, p, beta=2.0, zero_division=0.0),
    "precision_recall_fscore": lambda t, p: clf.precision_recall_fscore(
        t, p, average="macro", zero_division=0.0
    ),
    "rand_index": clu.rand_index,
    "adjusted_rand_index": clu.adjusted_rand_index,
    "nmi": clu.nmi,
    "v_measure": clu.v_measure,
    "fowlkes_mallows": clu.fowlkes_mallows,
    "purity": clu.purity,
    "contingency": clu.contingency,
    "pair_confusion": clu.pair_confusion,
    "pair_precision": clu.pair_precision,
    "pair_recall": clu.pair_recall,
    "pair_f1": clu.pair_f1,
    "jaccard": clu.jaccard,
    "pairwise": er.pairwise,
    "bcubed": er.bcubed,
    "bcubed_true_entity": lambda t, p: er.bcubed(t, p, weighting="true_entity"),
    "bcubed_per_record": er.bcubed_per_record,
    "cluster_level": er.cluster_level,
    "blocking": lambda t, p: er.blocking(t, blocks=p),
}

# functions of labels and scores / probabilities
SCORES: dict[str, Callable[[Any, Any], Any]] = {
    "roc_auc": clf.roc_auc,
    "average_precision": clf.average_precision,
    "log_loss": clf.log_loss,
    "log_likelihood": clf.log_likelihood,
}

# functions of two numeric arrays
NUMERIC: dict[str, Callable[[Any, Any], Any]] = {
    "mae": reg.mae,
    "mse": reg.mse,
    "rmse": reg.rmse,
    "r2": reg.r2,
}

# functions of data X and labels
INTERNAL: dict[str, Callable[[Any, Any], Any]] = {
    "silhouette": clu.silhouette,
    "silhouette_sampled": lambda x, lab: clu.silhouette(x, lab, sample_size=3, random_state=0),
    "davies_bouldin": clu.davies_bouldin,
    "calinski_harabasz": clu.calinski_harabasz,
    "dunn_index": clu.dunn_index,
    "dunn_centroid": lambda x, lab: clu.dunn_index(x, lab, variant="centroid"),
}

T = [0, 1, 1, 0, 1]
P = [0, 1, 0, 0, 1]
S = [0.1, 0.8, 0.4, 0.3, 0.9]
X = [[0.0, 0.0], [0.1, 0.0], [3.0, 3.0], [3.1, 3.0], [6.0, 0.0]]
LAB = [0, 0, 1, 1, 2]


def _value_or_ranklens_error(fn: Callable[..., Any], *args: Any) -> Any:
    """The value, or None after a RanklensError; any other exception fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # warnings are allowed here (see the family tests)
        try:
            return fn(*args)
        except RanklensError:
            return None


@pytest.mark.parametrize("name", sorted(LABEL_PAIRS))
def test_label_pairs_nan_empty_mismatched(name: str) -> None:
    fn = LABEL_PAIRS[name]
    for bad in ([0.0, NAN, 1.0, 0.0, 1.0], np.array([0, None, 1, 0, 1], dtype=object)):
        with pytest.raises(InputError, match="NaN"):
            fn(bad, P)
        with pytest.raises(InputError, match="NaN"):
            fn(T, bad)
    with pytest.raises(InputError, match="empty"):
        fn([], [])
    with pytest.raises(InputError, match="inconsistent numbers of samples"):
        fn(T, P[:3])


@pytest.mark.parametrize("name", sorted(SCORES))
def test_scores_nan_empty_mismatched(name: str) -> None:
    fn = SCORES[name]
    with pytest.raises(InputError, match="NaN"):
        fn(T, [0.1, NAN, 0.4, 0.3, 0.9])
    with pytest.raises(InputError, match="NaN"):
        fn([0.0, NAN, 1.0, 0.0, 1.0], S)
    with pytest.raises(InputError, match="NaN or infinite"):
        fn(T, [0.1, float("inf"), 0.4, 0.3, 0.9])
    with pytest.raises(InputError, match="empty"):
        fn([], [])
    with pytest.raises(InputError, match="inconsistent numbers of samples"):
        fn(T, S[:3])


@pytest.mark.parametrize("name", sorted(NUMERIC))
def test_regression_nan_empty_mismatched(name: str) -> None:
    fn = NUMERIC[name]
    for bad in ([1.0, NAN, 2.0], [1.0, float("inf"), 2.0], [[1.0], [NAN], [2.0]]):
        with pytest.raises(InputError, match="NaN or infinite"):
            fn(bad, [1.0, 2.0, 3.0])
        with pytest.raises(InputError, match="NaN or infinite"):
            fn([1.0, 2.0, 3.0], bad)
    with pytest.raises(InputError, match="empty"):
        fn([], [])
    with pytest.raises(InputError, match="inconsistent numbers of samples"):
        fn([1.0, 2.0, 3.0], [1.0, 2.0])


@pytest.mark.parametrize("name", sorted(INTERNAL))
def test_internal_nan_empty_mismatched(name: str) -> None:
    fn = INTERNAL[name]
    with pytest.raises(InputError, match="NaN"):
        fn([[0.0, 0.0], [NAN, 0.0], [3.0, 3.0], [3.1, 3.0], [6.0, 0.0]], LAB)
    with pytest.raises(InputError, match="NaN"):
        fn(X, [0.0, NAN, 1.0, 1.0, 2.0])
    with pytest.raises(InputError, match="empty"):
        fn(np.zeros((0, 2)), [])
    with pytest.raises(InputError, match="inconsistent numbers of samples"):
        fn(X, LAB[:4])


def test_pair_inputs_nan_and_shapes() -> None:
    for fn in (
        lambda a: er.pairwise_from_pairs(a, [[0, 1]]),
        lambda a: er.pairwise_from_pairs([[0, 1]], a),
        lambda a: er.blocking([0, 0, 1], candidate_pairs=a),
        lambda a: er.clusters_from_pairs(a, 3),
    ):
        with pytest.raises(InputError, match="NaN"):
            fn([[0, NAN]])
        with pytest.raises(InputError, match=r"\(m, 2\)"):
            fn([[0, 1, 2]])
        with pytest.raises(InputError):
            fn([0, 1])


ODD_LABELS: list[Any] = [
    [0, 0, 0, 0, 0],  # one class
    [1, 1, 1, 1, 1],
    ["a", "a", "b", "b", "a"],  # strings
    ["yes"] * 5,
    [True, False, True, True, False],  # booleans
    np.array([[0], [1], [1], [0], [1]]),  # a column
    np.array([[0, 1]] * 5),  # two columns
    np.zeros((5, 1, 1)),  # 3-d
    [0.0, 1.0, 1.0, 0.0, 1.0],  # integral floats
    [0.5, 1.5, 1.5, 0.5, 1.5],  # fractional floats
    [0, 1, 2, 3, 4],  # all distinct
    np.array([0, "a", 1, "b", 0], dtype=object),  # mixed
    [float("inf"), 1.0, 1.0, 0.0, 1.0],
    [2**62, -(2**62), 0, 1, 2**62],
    [1j, 0, 1, 0, 1],
    [[0, 1], [1], [0], [1], [0]],  # ragged
    "01101",
    5,
]


@pytest.mark.parametrize("name", sorted(LABEL_PAIRS))
def test_label_pairs_odd_inputs_never_leak_other_exceptions(name: str) -> None:
    fn = LABEL_PAIRS[name]
    for a, b in itertools.product(ODD_LABELS, repeat=2):
        _value_or_ranklens_error(fn, a, b)


@pytest.mark.parametrize("name", sorted(SCORES))
def test_scores_odd_inputs_never_leak_other_exceptions(name: str) -> None:
    fn = SCORES[name]
    odd_scores: list[Any] = [
        S,
        np.array(S)[:, None],
        [[0.5, 0.5]] * 5,
        [[0.2, 0.3, 0.5]] * 5,
        [0.0, 1.0, 1.0, 0.0, 1.0],
        [2.0, -1.0, 0.0, 0.0, 1.0],
        ["0.1", "0.8", "0.4", "0.3", "0.9"],
        ["a"] * 5,
        np.zeros((5, 1, 1)),
        [1j] * 5,
    ]
    for a, s in itertools.product(ODD_LABELS, odd_scores):
        _value_or_ranklens_error(fn, a, s)


@pytest.mark.parametrize("name", sorted(NUMERIC))
def test_regression_odd_inputs_never_leak_other_exceptions(name: str) -> None:
    fn = NUMERIC[name]
    for a, b in itertools.product(ODD_LABELS, repeat=2):
        _value_or_ranklens_error(fn, a, b)


@pytest.mark.parametrize("name", sorted(INTERNAL))
def test_internal_odd_inputs_never_leak_other_exceptions(name: str) -> None:
    fn = INTERNAL[name]
    odd_x: list[Any] = [
        X,
        np.zeros((5, 2)),
        np.array(X)[:, :1],
        [[1.0]] * 5,
        np.zeros((5, 2, 1)),
        [["a", "b"]] * 5,
        np.array(X)[:, 0],
    ]
    for x, lab in itertools.product(odd_x, ODD_LABELS):
        _value_or_ranklens_error(fn, x, lab)


def test_nan_never_becomes_a_number() -> None:
    # NaN among otherwise valid inputs of every family
    nan_t = [0.0, 1.0, NAN, 1.0]
    for fn in (*LABEL_PAIRS.values(), *SCORES.values(), *NUMERIC.values()):
        with pytest.raises(InputError):
            fn(nan_t, [0.0, 1.0, 1.0, 0.0])


# ----------------------------------------------------------------- per-sample values

_X = np.array([[0.0, 0.0], [0.0, 1.0], [4.0, 0.0], [4.0, 2.0], [0.5, 0.5]])
# function name -> a call taking reduction= / per_sample= keywords
PER_SAMPLE: dict[str, Callable[..., Any]] = {
    "accuracy": lambda **kw: clf.accuracy([0, 1, 1, 2], [0, 1, 2, 2], **kw),
    "log_loss": lambda **kw: clf.log_loss([1, 0, 1], [0.8, 0.4, 0.5], **kw),
    "mae": lambda **kw: reg.mae([3.0, -0.5, 2.0], [2.5, 0.0, 2.0], **kw),
    "mse": lambda **kw: reg.mse(
        [[3.0, 1.0], [-0.5, 2.0]], [[2.5, 1.0], [0.0, 0.0]], multioutput=[1, 3], **kw
    ),
    "silhouette": lambda **kw: clu.silhouette(_X, [0, 0, 1, 1, 0], **kw),
}


@pytest.mark.parametrize("name", sorted(PER_SAMPLE))
def test_reduction_none_and_the_deprecated_per_sample(name: str) -> None:
    import ranklens

    call = PER_SAMPLE[name]
    mean, values = call(), call(reduction="none")
    assert call(reduction="mean") == mean
    assert np.ndim(values) == 1 and np.mean(values) == pytest.approx(mean)
    with pytest.warns(
        ranklens.RanklensDeprecationWarning,
        match=rf"^{name}: per_sample=True is deprecated .*; pass "
        r"reduction='none'$",
    ):
        old = call(per_sample=True)
    np.testing.assert_array_equal(old, values)
    with pytest.warns(ranklens.RanklensDeprecationWarning, match="reduction='mean'"):
        assert call(per_sample=False) == mean
    with pytest.raises(
        InputError,
        match=r"^reduction must be one of 'mean', 'none', got "
        r"'sum'\.$",
    ):
        call(reduction="sum")
