"""Classification metrics: hand-computed values, seed worked examples, sklearn
reference on random inputs, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ranklens.classification as clf
from ranklens.errors import InputError
from ranklens.metrics.registry import REGISTRY

sk = pytest.importorskip("sklearn.metrics")


# ----------------------------------------------------------------- seed 003 recsys framing

def test_seed003_recsys_framing() -> None:
    # TP = recommended and interacted, FP = recommended, not interacted,
    # FN = interacted but not recommended
    interacted = [1, 0, 0, 1, 0, 0]
    recommended = [0, 0, 1, 1, 0, 0]
    assert clf.confusion_counts(interacted, recommended) == {"tp": 1, "fp": 1, "fn": 1,
                                                             "tn": 3}
    assert clf.precision(interacted, recommended) == 0.5
    assert clf.recall(interacted, recommended) == 0.5
    assert clf.f1(interacted, recommended) == 0.5
    assert clf.accuracy(interacted, recommended) == pytest.approx(4 / 6)
    assert clf.confusion_matrix(interacted, recommended).tolist() == [[3, 1], [1, 1]]


def test_hand_computed_binary_and_fbeta() -> None:
    t = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    p = [1, 1, 1, 0, 1, 1, 0, 0, 0, 0]  # TP 3, FP 2, FN 1
    assert clf.precision(t, p) == pytest.approx(3 / 5)
    assert clf.recall(t, p) == pytest.approx(3 / 4)
    assert clf.f1(t, p) == pytest.approx(2 * 0.6 * 0.75 / 1.35)
    b = 2.0
    assert clf.fbeta(t, p, beta=b) == pytest.approx((1 + b * b) * 0.6 * 0.75
                                                    / (b * b * 0.6 + 0.75))
    # pos_label switches the positive class: TP 4 (class 0), FP 1, FN 2
    assert clf.precision(t, p, pos_label=0) == pytest.approx(4 / 5)
    assert clf.recall(t, p, pos_label=0) == pytest.approx(4 / 6)


def test_averaging_conventions_hand_computed() -> None:
    t = [0, 1, 2, 2]
    p = [0, 2, 2, 2]
    # per class precision: 1, 0 (0/0 -> zero_division), 2/3; recall 1, 0, 1
    per = clf.precision(t, p, average=None)
    assert per.tolist() == pytest.approx([1.0, 0.0, 2 / 3])
    assert clf.precision(t, p, average=None, zero_division=1.0).tolist() == pytest.approx(
        [1.0, 1.0, 2 / 3])
    assert clf.precision(t, p, average="macro") == pytest.approx(5 / 9)
    assert clf.precision(t, p, average="micro") == pytest.approx(3 / 4)
    assert clf.recall(t, p, average="weighted") == pytest.approx((1 + 0 + 2) / 4)
    r = clf.precision_recall_fscore(t, p, average=None)
    assert r["support"].tolist() == [1, 1, 2]


def test_zero_division_nothing_predicted_positive() -> None:
    assert clf.precision([1, 0, 1], [0, 0, 0]) == 0.0
    assert clf.precision([1, 0, 1], [0, 0, 0], zero_division=1.0) == 1.0


def test_accuracy_per_sample_and_weights() -> None:
    assert clf.accuracy([1, 2, 3], [1, 2, 0]) == pytest.approx(2 / 3)
    assert clf.accuracy(["a", "b"], ["a", "a"], per_sample=True).tolist() == [1.0, 0.0]
    assert clf.accuracy([1, 2, 3], [1, 2, 0], sample_weight=[1, 1, 2]) == 0.5


def test_string_labels_and_explicit_labels() -> None:
    t = ["cat", "dog", "dog", "bird"]
    p = ["cat", "dog", "cat", "bird"]
    assert clf.precision(t, p, average="macro") == pytest.approx((1 + 0.5 + 1) / 3)
    cm = clf.confusion_matrix(t, p, labels=["dog", "cat", "bird"])
    assert cm.tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 1]]


# ----------------------------------------------------------------- scores

def test_seed001_average_precision_example() -> None:
    y = [1, 0, 0, 1, 0, 0, 1, 1]
    s = [0.8, 0.6, 0.3, 0.2, 0.9, 0.75, 0.81, 0.92]
    assert clf.average_precision(y, s) == pytest.approx((1 + 2 / 3 + 3 / 4 + 4 / 8) / 4)
    prop = [0.99, 0.98, 0.97, 0.96, 0.95, 0.94, 0.93, 0.92, 0.91]
    assert clf.average_precision([1, 0, 0, 0, 0, 0, 0, 0, 1], prop) == pytest.approx(
        (1 + 2 / 9) / 2)
    assert clf.average_precision([0, 0, 0, 0, 0, 0, 0, 0, 1], prop) == pytest.approx(1 / 9)


def test_roc_auc_hand_and_ties() -> None:
    assert clf.roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75
    assert clf.roc_auc([0, 1], [0.5, 0.5]) == 0.5  # tie counts half
    assert clf.roc_auc(["n", "y", "y"], [0.1, 0.2, 0.9], pos_label="y") == 1.0


# ----------------------------------------------------------------- likelihood

def test_log_likelihood_bernoulli_total_and_mean() -> None:
    t, p = [1, 0, 1], [0.8, 0.4, 0.5]
    expected = math.log(0.8) + math.log(0.6) + math.log(0.5)
    assert clf.log_likelihood(t, p) == pytest.approx(expected)
    assert clf.log_likelihood(t, p, reduction="mean") == pytest.approx(expected / 3)
    assert clf.log_likelihood(t, p, reduction="none").tolist() == pytest.approx(
        [math.log(0.8), math.log(0.6), math.log(0.5)])
    assert clf.log_loss(t, p) == pytest.approx(-expected / 3)
    assert clf.log_loss(t, p, per_sample=True).tolist() == pytest.approx(
        [-math.log(0.8), -math.log(0.6), -math.log(0.5)])


def test_log_likelihood_categorical() -> None:
    t = ["a", "c", "b"]
    p = [[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
    expected = math.log(0.7) + math.log(0.8) + math.log(0.3)
    assert clf.log_likelihood(t, p) == pytest.approx(expected)
    # explicit column order
    q = [[0.2, 0.7, 0.1], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
    assert clf.log_likelihood(t, q, labels=["b", "a", "c"]) == pytest.approx(expected)


def test_clipping_eps_documented() -> None:
    # a confident wrong prediction costs -log(eps), not infinity
    assert clf.log_loss([1], [0.0]) == pytest.approx(-math.log(1e-15))
    assert clf.log_loss([1], [0.0], eps=1e-3) == pytest.approx(-math.log(1e-3))
    assert clf.log_loss([1], [0.0], eps=0) == math.inf


def test_renormalize_option() -> None:
    p = [[2.0 / 4, 1.0 / 4], [0.25, 0.25]]
    with pytest.raises(InputError, match="sum to 1"):
        clf.log_loss([0, 1], p)
    assert clf.log_loss([0, 1], p, renormalize=True) == pytest.approx(
        -(math.log(2 / 3) + math.log(0.5)) / 2)


# ----------------------------------------------------------------- reference vs sklearn

@pytest.mark.reference
@pytest.mark.parametrize("seed", range(8))
def test_reference_sklearn_random(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = 200, 4
    t = rng.integers(0, k, n)
    t[:k] = np.arange(k)
    p = np.where(rng.random(n) < 0.6, t, rng.integers(0, k, n))
    for avg in ("micro", "macro", "weighted"):
        assert clf.precision(t, p, average=avg) == pytest.approx(
            sk.precision_score(t, p, average=avg, zero_division=0), abs=1e-12)
        assert clf.recall(t, p, average=avg) == pytest.approx(
            sk.recall_score(t, p, average=avg, zero_division=0), abs=1e-12)
        assert clf.f1(t, p, average=avg) == pytest.approx(
            sk.f1_score(t, p, average=avg, zero_division=0), abs=1e-12)
    bt, bp = (t > 1).astype(int), (p > 1).astype(int)
    assert clf.f1(bt, bp) == pytest.approx(sk.f1_score(bt, bp), abs=1e-12)
    assert clf.accuracy(t, p) == pytest.approx(sk.accuracy_score(t, p))
    assert (clf.confusion_matrix(t, p) == sk.confusion_matrix(t, p)).all()
    score = rng.random(n)
    assert clf.roc_auc(bt, score) == pytest.approx(sk.roc_auc_score(bt, score))
    assert clf.average_precision(bt, score) == pytest.approx(
        sk.average_precision_score(bt, score))
    prob = rng.dirichlet(np.ones(k), n)
    assert clf.log_loss(t, prob) == pytest.approx(sk.log_loss(t, prob), rel=1e-12)
    assert clf.roc_auc(t, prob) == pytest.approx(sk.roc_auc_score(t, prob, multi_class="ovr"))
    assert clf.roc_auc(t, prob, multi_class="ovo") == pytest.approx(
        sk.roc_auc_score(t, prob, multi_class="ovo"))
    pb = rng.uniform(0.01, 0.99, n)
    assert clf.log_loss(bt, pb) == pytest.approx(sk.log_loss(bt, pb), rel=1e-12)
    assert clf.log_likelihood(bt, pb) == pytest.approx(-n * sk.log_loss(bt, pb), rel=1e-12)


# ----------------------------------------------------------------- bad input

def test_mismatched_lengths_name_arrays() -> None:
    with pytest.raises(InputError, match="y_true has 3, y_pred has 2"):
        clf.precision([1, 0, 1], [1, 0])
    with pytest.raises(InputError, match="y_true has 2, y_prob has 3"):
        clf.log_loss([1, 0], [0.2, 0.3, 0.4])
    with pytest.raises(InputError, match="y_true has 2, y_score has 1"):
        clf.roc_auc([1, 0], [0.2])


def test_probabilities_out_of_range_and_rows() -> None:
    with pytest.raises(InputError, match=r"y_prob must hold probabilities in \[0, 1\]"):
        clf.log_loss([1, 0], [1.2, 0.3])
    with pytest.raises(InputError, match="rows of y_prob must sum to 1; row 1"):
        clf.log_likelihood([0, 1], [[0.5, 0.5], [0.5, 0.6]])
    with pytest.raises(InputError, match="y_prob has 2 columns but there are 3 classes"):
        clf.log_loss([0, 1, 2], [[0.5, 0.5]] * 3)
    with pytest.raises(InputError, match="rows of y_score must sum to 1"):
        clf.roc_auc([0, 1, 2], [[0.5, 0.5, 0.5]] * 3)


def test_unseen_predicted_labels() -> None:
    with pytest.raises(InputError, match=r"y_pred contains labels that never occur in "
                                         r"y_true: \[7\]"):
        clf.precision([0, 1, 1], [0, 7, 1], average="macro")
    # allowed when labels lists them
    assert clf.precision([0, 1, 1], [0, 7, 1], average="macro",
                         labels=[0, 1, 7]) == pytest.approx(2 / 3)
    with pytest.raises(InputError, match="y_true contains labels not listed"):
        clf.confusion_matrix([0, 1, 2], [0, 1, 1], labels=[0, 1])


def test_single_class_where_two_needed() -> None:
    with pytest.raises(InputError, match=r"at least two classes.*only \[1\]"):
        clf.roc_auc([1, 1, 1], [0.2, 0.3, 0.4])
    with pytest.raises(InputError, match="no sample of the positive class"):
        clf.average_precision([0, 0], [0.2, 0.3])
    with pytest.raises(InputError, match="average='binary' needs at most two classes"):
        clf.f1([0, 1, 2], [0, 1, 2])
    with pytest.raises(InputError, match="1-d y_prob is a Bernoulli model"):
        clf.log_loss([0, 1, 2], [0.1, 0.2, 0.3])


def test_nan_anywhere() -> None:
    with pytest.raises(InputError, match="y_true contains NaN"):
        clf.precision([1.0, float("nan")], [1, 0])
    with pytest.raises(InputError, match="y_pred contains NaN"):
        clf.f1(["a", "b"], ["a", None])
    with pytest.raises(InputError, match="y_score contains NaN"):
        clf.roc_auc([0, 1], [0.1, float("nan")])
    with pytest.raises(InputError, match="y_prob contains NaN"):
        clf.log_loss([0, 1], [0.1, float("nan")])


def test_bad_parameters() -> None:
    with pytest.raises(InputError, match="average must be one of"):
        clf.precision([0, 1], [0, 1], average="samples")
    with pytest.raises(InputError, match="eps must be a number"):
        clf.log_loss([0, 1], [0.1, 0.2], eps=0.7)
    with pytest.raises(InputError, match="reduction must be one of"):
        clf.log_likelihood([0, 1], [0.1, 0.2], reduction="avg")
    with pytest.raises(InputError, match="pos_label=5 is not one of the classes"):
        clf.precision([0, 1], [0, 1], pos_label=5)
    with pytest.raises(InputError, match="empty"):
        clf.accuracy([], [])
    with pytest.raises(InputError, match="beta must be a positive number"):
        clf.fbeta([0, 1], [0, 1], beta=0)


def test_registered() -> None:
    for name in ("clf_precision", "clf_recall", "clf_f1", "clf_fbeta", "accuracy",
                 "roc_auc", "clf_average_precision", "log_loss", "log_likelihood",
                 "confusion_matrix"):
        assert REGISTRY[name].domain == "classification"
        assert REGISTRY[name].doc
