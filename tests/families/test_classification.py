"""Classification metrics: hand-computed values, seed worked examples, sklearn
reference on random inputs, bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import ranklens.classification as clf
from ranklens.errors import InputError, RanklensWarning
from ranklens.metrics.registry import REGISTRY

sk = pytest.importorskip("sklearn.metrics")


# ----------------------------------------------------------------- seed 003 recsys framing


def test_seed003_recsys_framing() -> None:
    # TP = recommended and interacted, FP = recommended, not interacted,
    # FN = interacted but not recommended
    interacted = [1, 0, 0, 1, 0, 0]
    recommended = [0, 0, 1, 1, 0, 0]
    assert clf.confusion_counts(interacted, recommended) == {"tp": 1, "fp": 1, "fn": 1, "tn": 3}
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
    assert clf.fbeta(t, p, beta=b) == pytest.approx((1 + b * b) * 0.6 * 0.75 / (b * b * 0.6 + 0.75))
    # pos_label switches the positive class: TP 4 (class 0), FP 1, FN 2
    assert clf.precision(t, p, pos_label=0) == pytest.approx(4 / 5)
    assert clf.recall(t, p, pos_label=0) == pytest.approx(4 / 6)


def test_averaging_conventions_hand_computed() -> None:
    t = [0, 1, 2, 2]
    p = [0, 2, 2, 2]
    # per class precision: 1, 0 (0/0 -> zero_division), 2/3; recall 1, 0, 1
    with pytest.warns(RanklensWarning, match=r"Precision is ill-defined.*zero_division="):
        per = clf.precision(t, p, average=None)  # default "warn": 0.0 and a warning
    assert per.tolist() == pytest.approx([1.0, 0.0, 2 / 3])
    assert clf.precision(t, p, average=None, zero_division=1.0).tolist() == pytest.approx(
        [1.0, 1.0, 2 / 3]
    )
    assert clf.precision(t, p, average="macro", zero_division=0.0) == pytest.approx(5 / 9)
    assert clf.precision(t, p, average="micro") == pytest.approx(3 / 4)
    assert clf.recall(t, p, average="weighted") == pytest.approx((1 + 0 + 2) / 4)
    r = clf.precision_recall_fscore(t, p, average=None, zero_division=0.0)
    assert r["support"].tolist() == [1, 1, 2]


def test_zero_division_nothing_predicted_positive() -> None:
    with pytest.warns(RanklensWarning, match="no predicted samples"):
        assert clf.precision([1, 0, 1], [0, 0, 0]) == 0.0
    assert clf.precision([1, 0, 1], [0, 0, 0], zero_division=0.0) == 0.0
    assert clf.precision([1, 0, 1], [0, 0, 0], zero_division=1.0) == 1.0
    assert math.isnan(clf.precision([1, 0, 1], [0, 0, 0], zero_division=float("nan")))
    # recall 0/1 = 0 is defined: no warning; F is 0 (TP + FP + FN > 0), not zero_division
    assert clf.recall([1, 0, 1], [0, 0, 0]) == 0.0
    assert clf.f1([1, 0, 1], [0, 0, 0], zero_division=1.0) == 0.0


def test_accuracy_per_sample_and_weights() -> None:
    assert clf.accuracy([1, 2, 3], [1, 2, 0]) == pytest.approx(2 / 3)
    assert clf.accuracy(["a", "b"], ["a", "a"], reduction="none").tolist() == [1.0, 0.0]
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
        (1 + 2 / 9) / 2
    )
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
        [math.log(0.8), math.log(0.6), math.log(0.5)]
    )
    assert clf.log_loss(t, p) == pytest.approx(-expected / 3)
    assert clf.log_loss(t, p, reduction="none").tolist() == pytest.approx(
        [-math.log(0.8), -math.log(0.6), -math.log(0.5)]
    )


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
        -(math.log(2 / 3) + math.log(0.5)) / 2
    )


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
            sk.precision_score(t, p, average=avg, zero_division=0), abs=1e-12
        )
        assert clf.recall(t, p, average=avg) == pytest.approx(
            sk.recall_score(t, p, average=avg, zero_division=0), abs=1e-12
        )
        assert clf.f1(t, p, average=avg) == pytest.approx(
            sk.f1_score(t, p, average=avg, zero_division=0), abs=1e-12
        )
    bt, bp = (t > 1).astype(int), (p > 1).astype(int)
    assert clf.f1(bt, bp) == pytest.approx(sk.f1_score(bt, bp), abs=1e-12)
    assert clf.accuracy(t, p) == pytest.approx(sk.accuracy_score(t, p))
    assert (clf.confusion_matrix(t, p) == sk.confusion_matrix(t, p)).all()
    score = rng.random(n)
    assert clf.roc_auc(bt, score) == pytest.approx(sk.roc_auc_score(bt, score))
    assert clf.average_precision(bt, score) == pytest.approx(sk.average_precision_score(bt, score))
    prob = rng.dirichlet(np.ones(k), n)
    assert clf.log_loss(t, prob) == pytest.approx(sk.log_loss(t, prob), rel=1e-12)
    assert clf.roc_auc(t, prob) == pytest.approx(sk.roc_auc_score(t, prob, multi_class="ovr"))
    assert clf.roc_auc(t, prob, multi_class="ovo") == pytest.approx(
        sk.roc_auc_score(t, prob, multi_class="ovo")
    )
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
    from sklearn.metrics import confusion_matrix, precision_score, recall_score

    # a class only predicted is a class, as scikit-learn's unique_labels: (1 + 1 + 0) / 3
    t, p = [0, 1, 1], [0, 7, 1]
    assert clf.precision(t, p, average="macro") == pytest.approx(2 / 3)
    assert clf.precision(t, p, average="macro") == precision_score(t, p, average="macro")
    with pytest.warns(RanklensWarning, match="[Rr]ecall"):
        got = clf.recall(t, p, average="macro")
    with pytest.warns(UserWarning):
        assert got == recall_score(t, p, average="macro")
    assert clf.confusion_matrix(t, p).tolist() == confusion_matrix(t, p).tolist()
    assert clf.precision(t, p, average="macro", labels=[0, 1, 7]) == pytest.approx(2 / 3)
    # a labels subset selects classes (scikit-learn): the sample of class 2 is left out
    assert clf.confusion_matrix([0, 1, 2], [0, 1, 1], labels=[0, 1]).tolist() == [[1, 0], [0, 1]]
    with pytest.raises(InputError, match=r"none of labels \[5, 6\] occurs in y_true"):
        clf.confusion_matrix([0, 1, 2], [0, 1, 1], labels=[5, 6])


def test_single_class_where_two_needed() -> None:
    with pytest.raises(InputError, match=r"at least two classes.*only \[1\]"):
        clf.roc_auc([1, 1, 1], [0.2, 0.3, 0.4])
    # no positive: scikit-learn's 0.0 and its warning (recall set to one)
    from sklearn.metrics import average_precision_score

    with pytest.warns(RanklensWarning, match="No positive class found in y_true"):
        assert clf.average_precision([0, 0], [0.2, 0.3]) == 0.0
    with pytest.warns(UserWarning, match="No positive class found in y_true"):
        assert average_precision_score([0, 0], [0.2, 0.3]) == 0.0
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
    with pytest.raises(InputError, match="beta must be a finite number >= 0"):
        clf.fbeta([0, 1], [0, 1], beta=-1)


def test_registered() -> None:
    for name in (
        "clf_precision",
        "clf_recall",
        "clf_f1",
        "clf_fbeta",
        "accuracy",
        "roc_auc",
        "clf_average_precision",
        "log_loss",
        "log_likelihood",
        "confusion_matrix",
    ):
        assert REGISTRY[name].domain == "classification"
        assert REGISTRY[name].doc


# ----------------------------------------------------------------- 1-d probabilities


def test_log_loss_1d_probability_is_of_the_greater_class() -> None:
    # the independent check's case: P(y = "yes"), not P(y = "no")
    t, p = ["no", "yes", "yes"], [0.2, 0.9, 0.7]
    expected = -(math.log(0.8) + math.log(0.9) + math.log(0.7)) / 3
    assert clf.log_loss(t, p) == pytest.approx(expected)
    assert round(clf.log_loss(t, p), 4) == 0.2284
    assert clf.log_likelihood(t, p) == pytest.approx(-3 * expected)
    assert clf.log_likelihood(t, p, reduction="mean") == pytest.approx(-expected)
    # pos_label names the class the probability is of
    assert clf.log_loss(t, [0.8, 0.1, 0.3], pos_label="no") == pytest.approx(expected)
    # numeric classes other than 0/1: the greater one too
    assert clf.log_loss([1, 2, 2], p) == pytest.approx(expected)
    assert clf.log_loss([-1, 1, 1], p) == pytest.approx(expected)
    assert clf.log_loss([False, True, True], p) == pytest.approx(expected)
    # (n, 1) columns are 1-d
    assert clf.log_loss(np.array(t)[:, None], np.array(p)[:, None]) == pytest.approx(expected)
    # labels says which two classes there are when y_true shows one
    assert clf.log_loss(["yes", "yes"], [0.9, 0.7], labels=["yes", "no"]) == pytest.approx(
        -(math.log(0.9) + math.log(0.7)) / 2
    )
    assert clf.log_loss(["no"], [0.9], labels=["no", "yes"]) == pytest.approx(-math.log(0.1))
    # 0/1 outcomes are a Bernoulli model of P(y = 1) even when one of them is missing
    assert clf.log_loss([1, 1], [0.9, 0.7]) == pytest.approx(-(math.log(0.9) + math.log(0.7)) / 2)
    assert clf.log_loss([0, 0], [0.1, 0.3]) == pytest.approx(-(math.log(0.9) + math.log(0.7)) / 2)


def test_log_loss_1d_unknown_positive_class() -> None:
    with pytest.raises(InputError, match=r"single class 'yes'.*labels=\[negative, positive\]"):
        clf.log_loss(["yes", "yes"], [0.9, 0.7])
    with pytest.raises(InputError, match="labels lists 3 classes"):
        clf.log_loss([0, 1], [0.3, 0.6], labels=[0, 1, 2])
    with pytest.raises(InputError, match="pos_label='maybe' is not one of the classes"):
        clf.log_loss(["no", "yes"], [0.3, 0.6], pos_label="maybe")
    with pytest.raises(InputError, match=r"y_true contains labels not listed in labels: \[2\]"):
        clf.log_loss([0, 1, 2], [0.3, 0.6, 0.5], labels=[0, 1])
    with pytest.raises(InputError, match="at most two outcomes"):
        clf.log_loss(["a", "b", "c"], [0.3, 0.6, 0.5])


def test_log_loss_sample_weight_and_auto_eps() -> None:
    t, p, w = [0, 1], [0.3, 0.6], [1.0, 3.0]
    expected = -(math.log(0.7) + 3 * math.log(0.6)) / 4
    assert clf.log_loss(t, p, sample_weight=w) == pytest.approx(expected)
    assert clf.log_likelihood(t, p, sample_weight=w) == pytest.approx(
        math.log(0.7) + 3 * math.log(0.6)
    )
    assert clf.log_likelihood(t, p, sample_weight=w, reduction="mean") == pytest.approx(-expected)
    # a weight-0 sample does not count, even with an infinite loss
    assert clf.log_loss(t, [1.0, 0.6], eps=0, sample_weight=[0, 1]) == pytest.approx(-math.log(0.6))
    # "auto": clipped at the float64 machine epsilon, as scikit-learn
    assert clf.log_loss([1], [0.0], eps="auto") == pytest.approx(
        -math.log(np.finfo(np.float64).eps)
    )
    with pytest.raises(InputError, match="reduction='none'"):
        clf.log_likelihood(t, p, sample_weight=w, reduction="none")
    with pytest.raises(
        InputError,
        match=r"^reduction='none' returns unweighted per-sample "
        r"losses; leave sample_weight=None \(multiply by it yourself\)\.$",
    ):
        clf.log_loss(t, p, sample_weight=w, reduction="none")
    with pytest.raises(InputError, match=r"^reduction must be one of 'mean', 'none', got 'sum'"):
        clf.log_loss(t, p, reduction="sum")
    with pytest.raises(InputError, match=r"eps must be a number in \[0, 0.5\] or 'auto'"):
        clf.log_loss(t, p, eps="machine")
    with pytest.raises(InputError, match="sample_weight is 0 for every sample"):
        clf.log_loss(t, p, sample_weight=[0, 0])


# ----------------------------------------------------------------- one class, subsets


def test_one_class_binary_inputs_seed003() -> None:
    # a user who interacted with nothing (y_true all 0)
    nothing = [0, 0, 0, 0]
    recommended = [0, 1, 1, 0]
    assert clf.confusion_counts(nothing, nothing) == {"tp": 0, "fp": 0, "fn": 0, "tn": 4}
    assert clf.confusion_counts(nothing, recommended) == {"tp": 0, "fp": 2, "fn": 0, "tn": 2}
    assert clf.confusion_counts([1, 1], [0, 0]) == {"tp": 0, "fp": 0, "fn": 2, "tn": 0}
    assert clf.confusion_counts([1, 1, 1], [1, 0, 1]) == {"tp": 2, "fp": 0, "fn": 1, "tn": 0}
    # precision 0 / 2 is defined: no warning
    assert clf.precision(nothing, recommended) == 0.0
    with pytest.warns(RanklensWarning, match="Recall is ill-defined.*no true samples"):
        assert clf.recall(nothing, recommended) == 0.0
    assert clf.recall(nothing, recommended, zero_division=1.0) == 1.0
    assert clf.f1(nothing, recommended, zero_division=1.0) == 0.0  # 2 TP / (2 TP + FP + FN)
    # nothing recommended either: every ratio is 0/0
    for fn, what in ((clf.precision, "Precision"), (clf.recall, "Recall"), (clf.f1, "F-score")):
        with pytest.warns(RanklensWarning, match=f"{what} is ill-defined") as rec:
            assert fn(nothing, nothing) == 0.0
        assert len(rec) == 1
        assert fn(nothing, nothing, zero_division=1.0) == 1.0
    with pytest.warns(RanklensWarning, match="F-score is ill-defined"):
        assert clf.fbeta(nothing, nothing, beta=2.0) == 0.0
    assert clf.precision([1, 1], [1, 1]) == clf.recall([1, 1], [1, 1]) == 1.0
    # the positive class need not occur at all
    assert clf.confusion_counts(["a", "a"], ["a", "b"], pos_label="b") == {
        "tp": 0,
        "fp": 1,
        "fn": 0,
        "tn": 1,
    }
    with pytest.raises(InputError, match="needs at most two classes, found 3"):
        clf.confusion_counts([0, 1, 2], [0, 1, 1])
    with pytest.raises(InputError, match=r"pos_label=1 is not one of the classes \['a', 'b'\]"):
        clf.confusion_counts(["a", "b"], ["a", "b"])


def test_warnings_point_at_the_caller() -> None:
    with pytest.warns(RanklensWarning) as rec:
        clf.precision([0, 0], [0, 0])
    assert rec[0].filename == __file__
    with pytest.warns(RanklensWarning, match=r"pos_label \(set to 2\) is ignored"):
        clf.f1([0, 1, 2], [0, 1, 2], average="macro", pos_label=2)
    with pytest.warns(RanklensWarning, match=r"single class \(0\).*labels="):
        assert clf.confusion_matrix([0, 0], [0, 0]).tolist() == [[2]]
    assert clf.confusion_matrix([0, 0], [0, 0], labels=[0, 1]).tolist() == [[2, 0], [0, 0]]


def test_labels_subset_scores_only_the_listed_classes() -> None:
    t = [0, 1, 2, 2, 1, 0]
    p = [0, 2, 2, 1, 1, 0]
    # class 0: TP 2, FP 0, FN 0; class 1: TP 1, FP 1, FN 1
    assert clf.f1(t, p, average=None, labels=[0, 1]).tolist() == [1.0, 0.5]
    assert clf.f1(t, p, average="macro", labels=[0, 1]) == 0.75
    assert clf.precision(t, p, average="micro", labels=[0, 1]) == 0.75  # TP 3, FP 1
    assert clf.recall(t, p, average="weighted", labels=[1, 0]) == 0.75
    assert clf.recall(t, p, average=None, labels=[1, 0]).tolist() == [0.5, 1.0]
    # a listed class without samples: its 0/0 ratios are zero_division
    assert clf.precision(t, p, average=None, labels=[0, 7], zero_division=1.0).tolist() == [
        1.0,
        1.0,
    ]
    # labels do not apply to average="binary" (scikit-learn ignores them there too)
    assert clf.f1([0, 1, 1], [0, 1, 0], labels=[0, 1, 2]) == pytest.approx(2 / 3)


def test_accuracy_normalize() -> None:
    assert clf.accuracy([0, 1, 1], [0, 0, 1], normalize=False) == 2.0
    assert clf.accuracy([0, 1], [0, 0], normalize=False, sample_weight=[1, 2.5]) == 1.0


# ----------------------------------------------------------------- ROC-AUC labels


def test_roc_auc_labels_in_any_order() -> None:
    t = np.array([0, 0, 1, 1, 2, 2])
    s = np.array(
        [
            [0.6, 0.3, 0.1],
            [0.5, 0.2, 0.3],
            [0.2, 0.7, 0.1],
            [0.3, 0.3, 0.4],
            [0.1, 0.2, 0.7],
            [0.4, 0.1, 0.5],
        ]
    )
    # one-vs-rest per class: 0 -> 1 (0.6, 0.5 above the rest); 1 -> 7.5 / 8 (0.7 above
    # all four negatives, 0.3 above three and tied with one); 2 -> 1
    per = clf.roc_auc(t, s, average=None)
    assert per.tolist() == pytest.approx([1.0, 15 / 16, 1.0])
    perm = [2, 0, 1]
    # columns in labels order: the same classes give the same values, in labels order
    assert clf.roc_auc(t, s[:, perm], labels=[2, 0, 1], average=None).tolist() == pytest.approx(
        per[perm].tolist()
    )
    assert clf.roc_auc(t, s[:, perm], labels=[2, 0, 1]) == pytest.approx(per.mean())
    assert clf.roc_auc(t, s[:, perm], labels=[2, 0, 1], multi_class="ovo") == pytest.approx(
        clf.roc_auc(t, s, multi_class="ovo")
    )


def test_roc_auc_undefined_and_unsupported() -> None:
    t = [0, 1, 0, 1]
    with pytest.raises(InputError, match=r"multi_class='ovo'.*average='macro' or 'weighted'"):
        clf.roc_auc([0, 1, 2], [[0.5, 0.3, 0.2]] * 3, multi_class="ovo", average=None)
    with pytest.raises(InputError, match=r"y_score has 2 columns.*y_score\[:, 1\]"):
        clf.roc_auc(t, [[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.5, 0.5]])
    with pytest.raises(InputError, match="class 2 listed in labels has no sample"):
        clf.roc_auc(t, [[0.5, 0.3, 0.2]] * 4, labels=[0, 1, 2])
    with pytest.raises(InputError, match="every sample of class 1 has sample_weight 0"):
        clf.roc_auc(t, [0.1, 0.8, 0.4, 0.5], sample_weight=[1, 0, 1, 0])
    with pytest.raises(InputError, match="sample_weight is not defined for the one-vs-one"):
        clf.roc_auc([0, 1, 2], [[0.5, 0.3, 0.2]] * 3, multi_class="ovo", sample_weight=[1] * 3)
    with pytest.raises(InputError, match=r"max_fpr must be a number in \(0, 1\]"):
        clf.roc_auc(t, [0.1, 0.8, 0.4, 0.5], max_fpr=0)
    with pytest.raises(InputError, match="max_fpr"):
        clf.roc_auc([0, 1, 2], [[0.5, 0.3, 0.2]] * 3, max_fpr=0.5)
    with pytest.raises(InputError, match="every sample of the positive class"):
        clf.average_precision(t, [0.1, 0.8, 0.4, 0.5], sample_weight=[1, 0, 1, 0])
    with pytest.raises(InputError, match=r"pos_label=1 is not one of the classes \['n', 'y'\]"):
        clf.average_precision(["n", "y"], [0.1, 0.8])


# ----------------------------------------------------------------- label checks


def test_column_vectors_are_one_dimensional() -> None:
    t = np.array([[0], [1], [1], [0]])
    p = np.array([[0], [1], [0], [0]])
    s = np.array([[0.1], [0.8], [0.4], [0.5]])
    assert clf.f1(t, p) == clf.f1(t.ravel(), p.ravel()) == pytest.approx(2 / 3)
    assert clf.accuracy(t, p) == 0.75
    assert clf.confusion_matrix(t, p).tolist() == [[2, 0], [1, 1]]
    assert clf.confusion_counts(t, p) == {"tp": 1, "fp": 0, "fn": 1, "tn": 2}
    assert clf.roc_auc(t, s) == clf.roc_auc(t.ravel(), s.ravel()) == 0.75
    assert clf.average_precision(t, s) == clf.average_precision(t.ravel(), s.ravel())
    with pytest.raises(InputError, match=r"1-d or an \(n, 1\) column.*multilabel"):
        clf.accuracy([[0, 1]], [[0, 1]])


def test_labels_must_be_classes_of_one_type() -> None:
    with pytest.raises(InputError, match="string and numeric labels are mixed"):
        clf.accuracy(["0", "1"], [0, 1])
    with pytest.raises(InputError, match="y_true mixes string and numeric labels"):
        clf.f1(np.array([0, "a"], dtype=object), [0, 1])
    with pytest.raises(InputError, match=r"fractional part \(0.2 at index 0\).*threshold"):
        clf.precision([0.2, 1.0], [0.0, 1.0])
    with pytest.raises(InputError, match="y_pred holds numbers with a fractional part"):
        clf.accuracy([0, 1], [0.5, 1])
    with pytest.raises(InputError, match="infinite"):
        clf.accuracy([0.0, float("inf")], [0, 1])
    with pytest.raises(InputError, match="labels holds strings"):
        clf.precision([0, 1], [0, 1], average="macro", labels=["a"])
    with pytest.raises(InputError, match="fractional part"):
        clf.roc_auc([0.5, 1.0], [0.1, 0.2])
    assert clf.precision([0.0, 1.0], [0.0, 1.0]) == 1.0  # integral floats are classes


def test_parameter_values() -> None:
    with pytest.raises(InputError, match=r"zero_division must be 0.0, 1.0, nan or 'warn'"):
        clf.precision([0, 1], [0, 1], zero_division=0.5)
    with pytest.raises(InputError, match="zero_division must be"):
        clf.f1([0, 1], [0, 1], zero_division=True)
    with pytest.raises(InputError, match="sample_weight is 0 for every sample"):
        clf.precision([0, 1, 1], [1, 1, 0], sample_weight=[0, 0, 0])
    with pytest.raises(InputError, match="sample_weight is 0 for every sample"):
        clf.confusion_matrix([0, 1], [0, 1], sample_weight=[0, 0])
    with pytest.raises(InputError, match="average must be one of"):
        clf.roc_auc([0, 1], [0.1, 0.2], average="samples")


# ------------------------------------------------------------------ found by the contract
# (tests/test_contract_families.py)


def test_fbeta_takes_the_catalogue_default_and_beta_zero() -> None:
    # the catalogue declares beta=1.0 by default and `ranklens score -m clf_fbeta` passes
    # only the parameters given: the kernel needs the same default (it had none)
    t, p = [0, 1, 1, 0, 1], [0, 1, 0, 1, 1]
    assert clf.fbeta(t, p) == clf.f1(t, p)
    # beta >= 0, as the catalogue and scikit-learn: F_0 is the precision
    assert (
        clf.fbeta(t, p, beta=0)
        == pytest.approx(clf.precision(t, p))
        == sk.fbeta_score(t, p, beta=0)
    )
    assert clf.fbeta(t, p, beta=0.0, average="macro", zero_division=0.0) == pytest.approx(
        sk.fbeta_score(t, p, beta=0.0, average="macro", zero_division=0.0)
    )


def test_score_cli_computes_fbeta_without_beta(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ranklens.cli import main

    table = tmp_path / "t.csv"
    table.write_text("y_true,y_pred\n0,0\n1,1\n1,0\n0,1\n1,1\n")
    res = CliRunner().invoke(
        main,
        ["score", str(table), "-m", "clf_fbeta", "-m", "clf_fbeta(beta=0)", "--format", "json"],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    t, p = [0, 1, 1, 0, 1], [0, 1, 0, 1, 1]
    assert out == {
        "clf_fbeta": pytest.approx(clf.f1(t, p)),
        "clf_fbeta(beta=0)": pytest.approx(clf.precision(t, p)),
    }


def test_zero_division_spelled_nan() -> None:
    # the metric grammar has no float NaN: "nan" is accepted as the word
    assert math.isnan(clf.precision([1, 0, 1], [0, 0, 0], zero_division="nan"))
    with pytest.raises(InputError, match="zero_division must be"):
        clf.precision([1, 0, 1], [0, 0, 0], zero_division="NaN ")


def test_eps_half_is_allowed() -> None:
    # the catalogue declares eps in [0, 0.5]: at 0.5 every probability is clipped to 0.5
    assert clf.log_loss([1, 0, 1], [0.9, 0.0, 1.0], eps=0.5) == pytest.approx(math.log(2))
    with pytest.raises(InputError, match=r"eps must be a number in \[0, 0.5\]"):
        clf.log_loss([1, 0], [0.9, 0.1], eps=0.51)
