"""Reference tests: ranklens (profile ``sklearn``) against scikit-learn.

scikit-learn scores each query's scored documents: ``ndcg_score`` and
``dcg_score`` average the gains of tied documents (``ties='expected'``) and
build the ideal list from the scored documents (``ideal=retrieved``);
``average_precision_score`` treats a group of tied scores as one threshold
(``ap(ties=grouped, norm=retrieved)``).  Random queries with many ties and
graded relevance; every per-query value must agree to 1e-9.

The classification, regression and clustering families are compared with
scikit-learn on random inputs over every parameter both have (average,
labels in any order and subsets, pos_label, zero_division, beta,
sample_weight, multioutput, max_fpr, multi_class, average_method, metric,
sample_size / random_state), one-class and (n, 1) inputs included; where
scikit-learn warns (UndefinedMetricWarning) ranklens must warn with the same
message (as a RanklensWarning), and nowhere else.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import ranklens
import ranklens.classification as clf
import ranklens.clustering as clu
import ranklens.regression as reg
from ranklens.errors import RanklensWarning

metrics = pytest.importorskip("sklearn.metrics")

pytestmark = pytest.mark.reference


def _case(seed: int) -> tuple[list[str], list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(2000 + seed)
    queries, rels, scores = [], [], []
    for qi in range(int(rng.integers(2, 8))):
        n = int(rng.integers(2, 30))
        queries.append(f"q{qi}")
        rel = rng.choice([0, 0, 0, 1, 2, 3], size=n)
        if rng.random() < 0.1:
            rel[:] = 0
        rels.append(rel)
        scores.append(rng.integers(0, 5, size=n) / 2.0 + (rng.random() < 0.2) * rng.random(n))
    return queries, rels, scores


def _ranklens(
    queries: list[str], rels: list[np.ndarray], scores: list[np.ndarray]
) -> tuple[ranklens.Qrels, ranklens.Run]:
    qrels = ranklens.Qrels.from_dict(
        {
            q: {f"d{i}": int(r) for i, r in enumerate(rel)}
            for q, rel in zip(queries, rels, strict=True)
        }
    )
    run = ranklens.Run.from_dict(
        {
            q: {f"d{i}": float(s) for i, s in enumerate(sc)}
            for q, sc in zip(queries, scores, strict=True)
        }
    )
    return qrels, run


@pytest.mark.parametrize("seed", range(30))
def test_ndcg_dcg_and_ap_agree_with_sklearn(seed: int) -> None:
    queries, rels, scores = _case(seed)
    qrels, run = _ranklens(queries, rels, scores)
    names = ["ndcg", "ndcg@3", "ndcg@10", "dcg@5", "dcg", "ap"]
    res = ranklens.evaluate(qrels, run, names, profile="sklearn")
    for q, rel, sc in zip(queries, rels, scores, strict=True):
        yt, ys = rel[None, :].astype(float), sc[None, :]
        assert res.per_query("ndcg")[q] == pytest.approx(metrics.ndcg_score(yt, ys), abs=1e-9)
        for k in (3, 10):
            assert res.per_query(f"ndcg@{k}")[q] == pytest.approx(
                metrics.ndcg_score(yt, ys, k=k), abs=1e-9
            ), (seed, q, k)
        assert res.per_query("dcg@5")[q] == pytest.approx(metrics.dcg_score(yt, ys, k=5), abs=1e-9)
        assert res.per_query("dcg")[q] == pytest.approx(metrics.dcg_score(yt, ys), abs=1e-9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no positive sample: sklearn warns, returns 0
            ap = metrics.average_precision_score((rel >= 1).astype(int), sc)
        assert res.per_query("ap")[q] == pytest.approx(ap, abs=1e-9), (seed, q)


def test_sklearn_ties_are_averaged_not_broken() -> None:
    # two tied documents, one relevant: sklearn gives each position half the gain
    qrels = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0}})
    run = ranklens.Run.from_dict({"q": {"a": 0.5, "b": 0.5}})
    got = ranklens.evaluate(qrels, run, ["dcg"], profile="sklearn").summary()["dcg"]
    want = metrics.dcg_score(np.array([[1.0, 0.0]]), np.array([[0.5, 0.5]]))
    assert got == pytest.approx(want) == pytest.approx(0.5 * (1 + 1 / np.log2(3)))


# =========================================================================== other families
# ranklens.classification / regression / clustering against scikit-learn on random
# inputs, over every parameter both have.  scikit-learn's warnings are recorded, so
# that ranklens must warn (RanklensWarning) exactly where scikit-learn does.


def _quiet(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    """(value, sorted messages of the warnings) of a call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(*args, **kwargs)
    return value, sorted(
        str(w.message).split(" Use `zero_division`")[0].split(" Pass zero_division=")[0]
        for w in caught
    )


def _same(a, b) -> bool:  # type: ignore[no-untyped-def]
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True))


def _classes(rng: np.random.Generator, k: int, strings: bool) -> np.ndarray:
    names = np.array(["ant", "bee", "cat", "dog", "eel", "fox"])
    return names[:k] if strings else np.sort(rng.choice(np.arange(-3, 9), k, replace=False))


@pytest.mark.parametrize("seed", range(10))
def test_precision_recall_f_every_parameter(seed: int) -> None:
    rng = np.random.default_rng(3000 + seed)
    k, n = int(rng.integers(2, 6)), int(rng.integers(4, 40))
    classes = _classes(rng, k, strings=seed % 2 == 1)
    t = rng.choice(classes, n)
    t[:k] = classes  # labels=None: every predicted class occurs in y_true
    p = np.where(rng.random(n) < 0.5, t, rng.choice(classes, n))
    weights = (None, rng.random(n) * (rng.random(n) < 0.8) + 1e-3)
    shuffled = rng.permutation(classes)
    subset = shuffled[: int(rng.integers(1, k + 1))]
    extra = np.append(subset, "zzz" if classes.dtype.kind == "U" else 99)  # absent class
    for average, labels, zd, w in itertools.product(
        (None, "micro", "macro", "weighted"),
        (None, shuffled, subset, extra),
        ("warn", 0.0, 1.0, float("nan")),
        weights,
    ):
        beta = float(rng.choice([0.5, 1.0, 2.0]))
        kw = {"average": average, "labels": labels, "sample_weight": w, "zero_division": zd}
        got, got_w = _quiet(clf.precision_recall_fscore, t, p, beta=beta, **kw)
        want, want_w = _quiet(metrics.precision_recall_fscore_support, t, p, beta=beta, **kw)
        case = (seed, average, labels, zd, w is not None, beta)
        for i, key in enumerate(("precision", "recall", "fbeta")):
            assert _same(got[key], want[i]), (case, key)
        if average is None:
            assert _same(got["support"], want[3]), case
        assert got_w == want_w, case
        if rng.random() < 0.7:
            continue  # the single-metric functions on a random 30% of the combinations
        for ours, theirs in (
            (clf.precision, metrics.precision_score),
            (clf.recall, metrics.recall_score),
            (clf.f1, metrics.f1_score),
        ):
            a, a_w = _quiet(ours, t, p, **kw)
            b, b_w = _quiet(theirs, t, p, **kw)
            assert _same(a, b) and a_w == b_w, (case, ours.__name__)
        a, a_w = _quiet(clf.fbeta, t, p, beta=beta, **kw)
        b, b_w = _quiet(metrics.fbeta_score, t, p, beta=beta, **kw)
        assert _same(a, b) and a_w == b_w, (case, "fbeta")


@pytest.mark.parametrize("seed", range(12))
def test_binary_every_parameter_including_one_class(seed: int) -> None:
    rng = np.random.default_rng(3100 + seed)
    n = int(rng.integers(1, 12))
    classes = np.array(["no", "yes"]) if seed % 3 == 0 else np.array([0, 1])
    # y_true / y_pred each of one class or of two: seed 003's users included
    present_t = classes[:1] if seed % 4 == 0 else classes[1:] if seed % 4 == 1 else classes
    t = rng.choice(present_t, n)
    p = rng.choice(classes[rng.integers(0, 2) :], n)
    for pos_label, zd, w in itertools.product(
        classes, ("warn", 0.0, 1.0, float("nan")), (None, rng.random(n) + 0.1)
    ):
        kw = {"pos_label": pos_label, "zero_division": zd, "sample_weight": w}
        case = (seed, t.tolist(), p.tolist(), pos_label, zd)
        for ours, theirs in (
            (clf.precision, metrics.precision_score),
            (clf.recall, metrics.recall_score),
            (clf.f1, metrics.f1_score),
        ):
            a, a_w = _quiet(ours, t, p, **kw)
            b, b_w = _quiet(theirs, t, p, **kw)
            assert _same(a, b) and a_w == b_w, (case, ours.__name__)
        a, a_w = _quiet(clf.fbeta, t, p, beta=2.0, **kw)
        b, b_w = _quiet(metrics.fbeta_score, t, p, beta=2.0, **kw)
        assert _same(a, b) and a_w == b_w, (case, "fbeta")
        neg = classes[0] if pos_label == classes[1] else classes[1]
        tn, fp, fn, tp = metrics.confusion_matrix(t, p, labels=[neg, pos_label]).ravel()
        assert clf.confusion_counts(t, p, pos_label=pos_label) == {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
        }, case
    # column vectors give the same numbers
    assert clf.f1(
        t[:, None], p[:, None], pos_label=classes[1], zero_division=0.0
    ) == metrics.f1_score(t, p, pos_label=classes[1], zero_division=0.0)


@pytest.mark.parametrize("seed", range(6))
def test_confusion_matrix_and_accuracy(seed: int) -> None:
    rng = np.random.default_rng(3200 + seed)
    k, n = int(rng.integers(2, 5)), int(rng.integers(5, 50))
    classes = _classes(rng, k, strings=seed % 2 == 0)
    t = rng.choice(classes, n)
    t[:k] = classes
    p = np.where(rng.random(n) < 0.6, t, rng.choice(classes, n))
    w = rng.random(n)
    for labels, normalize, sw in itertools.product(
        (None, rng.permutation(classes), rng.permutation(classes)[: max(1, k - 1)]),
        (None, "true", "pred", "all"),
        (None, w),
    ):
        if labels is not None and not np.isin(labels, t).any():
            continue
        got = clf.confusion_matrix(t, p, labels=labels, normalize=normalize, sample_weight=sw)
        want = metrics.confusion_matrix(t, p, labels=labels, normalize=normalize, sample_weight=sw)
        assert _same(got, want), (seed, labels, normalize)
    for sw, normalize in itertools.product((None, w), (True, False)):
        assert clf.accuracy(t, p, sample_weight=sw, normalize=normalize) == pytest.approx(
            metrics.accuracy_score(t, p, sample_weight=sw, normalize=normalize), rel=1e-12
        )


@pytest.mark.parametrize("seed", range(10))
def test_roc_auc_and_average_precision_every_parameter(seed: int) -> None:
    rng = np.random.default_rng(3300 + seed)
    n = int(rng.integers(6, 80))
    classes = _classes(rng, 2, strings=seed % 2 == 0)
    t = rng.choice(classes, n)
    t[:2] = classes
    s = np.round(rng.random(n), 1)  # ties
    w = rng.random(n) + 0.05
    for sw, max_fpr in itertools.product((None, w), (None, 0.3, 1.0)):
        assert clf.roc_auc(t, s, sample_weight=sw, max_fpr=max_fpr) == pytest.approx(
            metrics.roc_auc_score(t, s, sample_weight=sw, max_fpr=max_fpr), rel=1e-12
        )
        # pos_label = the smaller class: the AUC of the reversed problem
        lo = (t == classes[0]).astype(int)
        assert clf.roc_auc(
            t, s, pos_label=classes[0], sample_weight=sw, max_fpr=max_fpr
        ) == pytest.approx(
            metrics.roc_auc_score(lo, s, sample_weight=sw, max_fpr=max_fpr), rel=1e-12
        )
        for pos in classes:
            assert clf.average_precision(t, s, pos_label=pos, sample_weight=sw) == pytest.approx(
                metrics.average_precision_score(t, s, pos_label=pos, sample_weight=sw), rel=1e-12
            )
    # multi-class: columns in labels order, in any order
    k = int(rng.integers(3, 6))
    mc = _classes(rng, k, strings=seed % 2 == 1)
    tm = rng.choice(mc, n)
    tm[:k] = mc
    prob = rng.dirichlet(np.ones(k), n)
    for order, average, multi_class, sw in itertools.product(
        (np.arange(k), rng.permutation(k)),
        ("macro", "weighted", "micro", None),
        ("ovr", "ovo"),
        (None, w),
    ):
        if multi_class == "ovo" and (average in ("micro", None) or sw is not None):
            continue  # not defined (InputError, tested in test_classification)
        want = metrics.roc_auc_score(
            tm, prob, labels=mc, average=average, multi_class=multi_class, sample_weight=sw
        )
        got = clf.roc_auc(
            tm,
            prob[:, order],
            labels=mc[order],
            average=average,
            multi_class=multi_class,
            sample_weight=sw,
        )
        if average is None:
            want = np.asarray(want)[order]  # ours in labels order
        assert _same(got, want), (seed, order, average, multi_class)


@pytest.mark.parametrize("seed", range(10))
def test_log_loss_every_parameter(seed: int) -> None:
    rng = np.random.default_rng(3400 + seed)
    n = int(rng.integers(2, 60))
    classes = _classes(rng, 2, strings=seed % 2 == 0)
    t = rng.choice(classes, n)
    t[:2] = classes
    # probabilities of the greater class, exact 0 and 1 included
    p1 = np.where(rng.random(n) < 0.1, rng.integers(0, 2, n), rng.random(n))
    w = rng.random(n) + 0.05
    for sw in (None, w):
        want = metrics.log_loss(t, p1, sample_weight=sw)
        assert clf.log_loss(t, p1, eps="auto", sample_weight=sw) == pytest.approx(want, rel=1e-12)
        assert clf.log_loss(t[:, None], p1[:, None], eps="auto", sample_weight=sw) == pytest.approx(
            want, rel=1e-12
        )
        assert clf.log_loss(
            t, p1, eps="auto", labels=classes[::-1], sample_weight=sw
        ) == pytest.approx(want, rel=1e-12)
        assert clf.log_loss(
            t, 1 - p1, eps="auto", pos_label=classes[0], sample_weight=sw
        ) == pytest.approx(want, rel=1e-12)
        total = clf.log_likelihood(t, p1, eps="auto", sample_weight=sw)
        assert total == pytest.approx(-want * (n if sw is None else sw.sum()), rel=1e-12)
        # one class observed, both named by labels
        one = np.full(n, classes[1])
        assert clf.log_loss(one, p1, eps="auto", labels=classes, sample_weight=sw) == pytest.approx(
            metrics.log_loss(one, p1, labels=classes, sample_weight=sw), rel=1e-12
        )
    # categorical, columns in labels order
    k = int(rng.integers(3, 6))
    mc = _classes(rng, k, strings=seed % 2 == 1)
    tm = rng.choice(mc, n)
    tm[:k] = mc
    prob = rng.dirichlet(np.ones(k), n)
    order = rng.permutation(k)
    for sw in (None, w):
        want = metrics.log_loss(tm, prob, labels=mc, sample_weight=sw)
        assert clf.log_loss(tm, prob, sample_weight=sw) == pytest.approx(want, rel=1e-12)
        assert clf.log_loss(
            tm, prob[:, order], labels=mc[order], sample_weight=sw
        ) == pytest.approx(want, rel=1e-12)


def test_log_loss_string_labels_one_dimensional() -> None:
    # the independent check's example
    t, p = ["no", "yes", "yes"], [0.2, 0.9, 0.7]
    assert clf.log_loss(t, p) == pytest.approx(metrics.log_loss(t, p), rel=1e-12)
    assert clf.log_loss(t, p) == pytest.approx(0.22839300363692283, rel=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_regression_every_parameter(seed: int) -> None:
    rng = np.random.default_rng(3500 + seed)
    n, k = int(rng.integers(2, 60)), int(rng.integers(1, 4))
    t = rng.normal(size=(n, k))
    p = t + rng.normal(scale=0.5, size=(n, k))
    if seed % 4 == 0:
        t[:, 0] = 1.5  # a constant output: R^2's force_finite convention
    w = rng.random(n) + 0.01
    shapes = [(t, p)]
    if k == 1:  # column vectors and 1-d arrays, in every combination
        shapes += [(t[:, 0], p[:, 0]), (t, p[:, 0]), (t[:, 0], p)]
    pairs = [
        (reg.mae, metrics.mean_absolute_error),
        (reg.mse, metrics.mean_squared_error),
        (reg.rmse, metrics.root_mean_squared_error),
        (reg.r2, metrics.r2_score),
    ]
    weights = [rng.random(k) + 0.1] if k > 1 else []  # scikit-learn: only for k > 1
    for (yt, yp), sw, mo in itertools.product(
        shapes, (None, w), ("uniform_average", "raw_values", *weights)
    ):
        for ours, theirs in pairs:
            assert _same(
                ours(yt, yp, sample_weight=sw, multioutput=mo),
                theirs(yt, yp, sample_weight=sw, multioutput=mo),
            ), (seed, ours)
    for sw in (None, w):
        assert _same(
            reg.r2(t, p, sample_weight=sw, multioutput="variance_weighted"),
            metrics.r2_score(t, p, sample_weight=sw, multioutput="variance_weighted"),
        ), seed


@pytest.mark.parametrize("seed", range(6))
def test_clustering_every_parameter(seed: int) -> None:
    rng = np.random.default_rng(3600 + seed)
    n = int(rng.integers(3, 80))
    t = rng.integers(0, int(rng.integers(1, 6)), n)
    p = rng.integers(0, int(rng.integers(1, 6)), n)  # one cluster / singletons included
    assert clu.rand_index(t, p) == pytest.approx(metrics.rand_score(t, p), rel=1e-12)
    assert clu.adjusted_rand_index(t, p) == pytest.approx(
        metrics.adjusted_rand_score(t, p), rel=1e-12, abs=1e-12
    )
    for method in ("arithmetic", "geometric", "min", "max"):
        assert clu.nmi(t, p, average_method=method) == pytest.approx(
            metrics.normalized_mutual_info_score(t, p, average_method=method), abs=1e-12
        )
    for beta in (0.0, 0.5, 1.0, 3.0):
        assert clu.v_measure(t, p, beta=beta) == pytest.approx(
            metrics.v_measure_score(t, p, beta=beta), abs=1e-12
        )
    assert clu.fowlkes_mallows(t, p) == pytest.approx(
        metrics.fowlkes_mallows_score(t, p), abs=1e-12
    )
    pc = clu.pair_confusion(t, p)
    skm = metrics.cluster.pair_confusion_matrix(t, p) // 2
    assert pc == {"tp": skm[1, 1], "fp": skm[0, 1], "fn": skm[1, 0], "tn": skm[0, 0]}
    # internal indices, (n, 1) labels, sampled silhouette with scikit-learn's sample
    X = rng.normal(size=(n, 2)) + t[:, None]
    lab = rng.integers(0, 3, n)
    lab[:3] = [0, 1, 2]
    if not 2 <= len(np.unique(lab)) <= n - 1:
        return
    for ours, theirs in (
        (clu.silhouette, metrics.silhouette_score),
        (clu.davies_bouldin, metrics.davies_bouldin_score),
        (clu.calinski_harabasz, metrics.calinski_harabasz_score),
    ):
        want = theirs(X, lab)
        assert ours(X, lab) == pytest.approx(want, rel=1e-12)
        assert ours(X, lab[:, None]) == pytest.approx(want, rel=1e-12)
    for metric in ("euclidean", "manhattan", "cosine"):
        assert clu.silhouette(X, lab, metric=metric) == pytest.approx(
            metrics.silhouette_score(X, lab, metric=metric), rel=1e-12
        )
    size = int(rng.integers(3, n + 3))
    drawn = lab[np.random.RandomState(seed).permutation(n)[:size]]  # scikit-learn's sample
    if 2 <= len(np.unique(drawn)) <= len(drawn) - 1:
        D = metrics.pairwise_distances(X)
        want = metrics.silhouette_score(X, lab, sample_size=size, random_state=seed)
        assert clu.silhouette(X, lab, sample_size=size, random_state=seed) == pytest.approx(
            want, rel=1e-12
        )
        assert clu.silhouette(
            D, lab, metric="precomputed", sample_size=size, random_state=seed
        ) == pytest.approx(
            metrics.silhouette_score(
                D, lab, metric="precomputed", sample_size=size, random_state=seed
            ),
            rel=1e-12,
        )


def test_warnings_are_ranklens_warnings() -> None:
    # where scikit-learn warns, ranklens warns with its own category
    with pytest.warns(RanklensWarning, match="Precision is ill-defined"):
        clf.precision([0, 0], [0, 0])
    assert math.isnan(clf.precision([0, 0], [0, 0], zero_division=float("nan")))
