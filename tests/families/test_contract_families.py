"""The contract every non-ranking metric of the catalogue passes.

Generated from :data:`ranklens.metrics.catalogue.CATALOGUE` (in the spirit of
scikit-learn's ``metrics/tests/test_common.py``): for every metric of the
classification, regression, clustering, entity-resolution and detection
families x every allowed value of each of its parameters (every choice;
numbers at the declared bounds and between them; named settings such as
``zero_division="warn"`` and ``eps="auto"``), over seeded random valid inputs
of its family (binary, multi-class, string, boolean and one-class labels,
probabilities including 0 and 1; regression with a constant target and
several outputs; clusterings with a single cluster and all singletons;
entity resolutions without a predicted pair; boxes of zero area and boxes
overlapping nothing):

* (a) the value lies in the declared range (``defn.range``; None: any), or
  the call raises our error (:class:`ranklens.RanklensError`); never a value
  outside the range, never another library's exception, never another
  library's warning;
* (b) NaN anywhere in any data argument raises :class:`ranklens.InputError`;
* (c) every invalid parameter value (wrong type, NaN, inf, out of
  [minimum, maximum], unknown choice) raises our error naming the parameter,
  both through :func:`ranklens.get_metric` and as a keyword of the kernel;
  every value the catalogue accepts is one the kernel computes, and the
  kernel's defaults are the catalogue's;
* (d) ``higher_is_better``: a perfect prediction scores at least as well as
  the random one (where a perfect prediction is defined);
* (e) the value does not depend on the order of the samples (detections have
  distinct scores: tied detections are matched in input order by definition,
  and a random subsample, silhouette's ``sample_size``, is drawn by position).

Where the catalogue's declaration of a parameter disagrees with its kernel,
the check is a strict xfail saying what the declaration must be
(:data:`CATALOGUE_ISSUES`): the fix of the catalogue turns it into a failure,
and the entry goes with the fix.

The beyond-accuracy recommender metrics (family ``recsys``) are called through
their one entry point, :func:`ranklens.recsys.evaluate_interactions`, on seeded
random recommendations, held-out and training logs and item descriptions: their
values lie in the declared range, a list built to be better on every axis scores
better in the declared direction, and the inputs they declare are exactly those
they need.  COCO's numbers (``coco_ap``, ``coco_ar``) take COCO-layout tables of
the detection cases.  Every entry's docstring has a formula, a source and a
doctest, and its kernel imports (a kernel serving several entries names each).

The kernel's data arguments are found by the table of ``ranklens score``
(:data:`ranklens.cli.score.DOMAINS`; detection's below), its value in a dict
result as ``ranklens score`` picks it.  A metric added to the catalogue is
covered without touching this file.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import ranklens as rl
from ranklens.cli.score import DOMAINS, _pick
from ranklens.metrics.catalogue import CATALOGUE, MetricDef, Param
from ranklens.metrics.registry import Metric

pytest.importorskip("sklearn")
pytest.importorskip("scipy")

# the families this harness feeds (by ``ranklens score``'s roles); the recommender
# metrics and COCO's numbers have their own inputs and harness below
HARNESS_DOMAINS = {"classification", "regression", "clustering", "entity_resolution", "detection"}
OWN_HARNESS = {"coco_ap", "coco_ar"}
FAMILIES = [d for d in CATALOGUE if d.domain in HARNESS_DOMAINS and d.name not in OWN_HARNESS]
NAN = float("nan")
INF = float("inf")

# kernel argument -> (role, key in a dict-valued role or None), per family
ROLES: dict[str, dict[str, tuple[str, str | None]]] = {
    **{dom: {a: (arg.role, None) for a, arg in table.items()} for dom, table in DOMAINS.items()},
    "detection": {
        "boxes1": ("true", "boxes"),
        "boxes2": ("pred", "boxes"),
        "gt": ("true", None),
        "det": ("pred", None),
    },
}

# values the kernels document for a parameter beyond (or within) the catalogue's
# declaration: computed directly as variants too, and not errors as keywords
DOCUMENTED: dict[str, list[Any]] = {
    "average": [None],  # per-class values
    "zero_division": [0.0, 1.0, NAN, "nan"],  # scikit-learn's 0, 1 and nan
    "sample_size": [None],  # exact (the default)
}

# metrics for which pred = true is not the best prediction, and why
NO_PERFECT = {
    "iou": "a matrix over two box sets: there is no better or worse pair of sets",
    "reduction_ratio": "it rewards fewer candidate pairs whatever the truth: a blocking "
    "by the true entities is not its optimum",
}

# catalogue declarations that disagree with their kernel: (metric, parameter) -> what
# the catalogue must say (strict xfail: fixing the catalogue turns it into a failure,
# so this entry is removed with the fix)
_ZD_CLF = (
    "declares zero_division an unbounded number; the kernel (scikit-learn) takes "
    "0, 1, nan or 'warn' only: Param needs a set of numbers, values=(0.0, 1.0), with "
    "choices=('warn', 'nan')"
)
_ZD = (
    "declares zero_division an unbounded number; a 0/0 ratio's value must lie in the "
    "metric's range: minimum=0.0, maximum=1.0 (and choices=('nan',))"
)
CATALOGUE_ISSUES: dict[tuple[str, str], str] = {}


# ------------------------------------------------------------------------- the variants


def _sample(p: Param) -> list[Any]:
    """Valid values of one parameter (the catalogue's): every choice, named settings,
    numbers at the bounds and between them (or the only numbers it allows)."""
    if p.kind == "choice":
        return list(p.choices or ())
    vals: list[Any] = list(p.choices or ())  # named settings: warn, auto
    only = getattr(p, "values", None)  # the only numbers allowed, should Param declare it
    if only:
        return vals + list(only)
    lo = p.minimum if p.minimum is not None else -2.0
    hi = p.maximum if p.maximum is not None else lo + 5.0
    nums = [lo, hi, (lo + hi) / 2]
    if getattr(p, "open_minimum", False):  # the minimum excluded, should Param declare it
        nums[0] = lo + (hi - lo) / 1000
    if p.open_maximum:  # the maximum excluded
        nums[1] = hi - (hi - lo) / 1000
    if p.minimum is not None and p.maximum is None:
        nums.append(lo + 1000)
    if p.kind == "int":
        nums = [math.ceil(v) for v in nums]
    if isinstance(p.default, (int, float)) and not isinstance(p.default, bool):
        nums.append(p.default)
    return vals + sorted(set(nums), key=float)


def _variants(defn: MetricDef) -> list[dict[str, Any]]:
    """Parameter settings as the catalogue normalises them (``get_metric``), each
    parameter's every value in turn (the others left to the kernel's default, as
    ``ranklens score`` does), then the values the kernels document (passed as
    they are); {} first."""
    out: list[dict[str, Any]] = [{}]
    for p in defn.params:
        for v in _sample(p):
            m = rl.get_metric(Metric(defn.name, None, ((p.name, v),)))
            out.append(dict(m.params))
    out += [{p.name: v} for p in defn.params for v in DOCUMENTED.get(p.name, [])]
    unique: dict[str, dict[str, Any]] = {}
    for s in out:
        unique.setdefault(repr(sorted(s.items())), s)
    return list(unique.values())


def _nan_ok(params: dict[str, Any]) -> bool:
    zd = params.get("zero_division")
    return zd == "nan" or (isinstance(zd, float) and zd != zd)


# ------------------------------------------------------------------------- the data


@dataclass
class Case:
    """One input: data by role (arrays with samples on the first axis; detection:
    dicts of such arrays) and the perfect prediction by role (None: undefined)."""

    name: str
    data: dict[str, Any]
    perfect: dict[str, Any] | None = None
    tags: frozenset[str] = field(default_factory=frozenset)


def _onehot(t: np.ndarray) -> np.ndarray:
    classes = np.unique(t)
    return (t[:, None] == classes[None, :]).astype(np.float64)


def _probs(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """Probabilities with exact 0s and 1s: (n,) for k == 2, else (n, k) rows summing
    to 1 (some one-hot)."""
    if k == 2:
        p = rng.uniform(size=n)
        p[: min(n, 3)] = [0.0, 1.0, 0.5][: min(n, 3)]
        return p
    p = rng.dirichlet(np.ones(k), size=n)
    p[0] = np.eye(k)[0]
    if n > 1:
        p[1] = np.eye(k)[k - 1]
    return p


def _clf(name: str, t: Any, p: Any, score: Any, perfect_score: Any) -> Case:
    t, p = np.asarray(t), np.asarray(p)
    return Case(
        name,
        {"true": t, "pred": p, "score": np.asarray(score)},
        {"pred": t.copy(), "score": np.asarray(perfect_score)},
    )


def _classification() -> list[Case]:
    rng = np.random.default_rng(11)
    n = 24
    out = []
    t = rng.integers(0, 2, n)
    out.append(_clf("binary", t, rng.integers(0, 2, n), _probs(rng, n, 2), t.astype(float)))
    ts = np.array(["no", "yes"])[rng.integers(0, 2, n)]
    out.append(
        _clf(
            "binary_str",
            ts,
            np.array(["no", "yes"])[rng.integers(0, 2, n)],
            _probs(rng, n, 2),
            (ts == "yes").astype(float),
        )
    )
    t = rng.integers(0, 3, n)
    t[:3] = [0, 1, 2]
    out.append(_clf("multiclass", t, rng.integers(0, 3, n), _probs(rng, n, 3), _onehot(t)))
    ts = np.array(["a", "b", "c"])[t]
    out.append(
        _clf(
            "multiclass_str",
            ts,
            np.array(["a", "b", "c"])[rng.integers(0, 3, n)],
            _probs(rng, n, 3),
            _onehot(ts),
        )
    )
    out.append(
        _clf(
            "one_class_true",
            np.zeros(n, int),
            rng.integers(0, 2, n),
            _probs(rng, n, 2),
            np.zeros(n),
        )
    )
    out.append(
        _clf("one_class_both", np.ones(n, int), np.ones(n, int), _probs(rng, n, 2), np.ones(n))
    )
    t = rng.integers(0, 2, n)
    out.append(
        _clf("class_only_predicted", t, rng.integers(0, 3, n), _probs(rng, n, 2), t.astype(float))
    )
    t = rng.integers(0, 2, n)
    out.append(
        _clf(
            "bool",
            t.astype(bool),
            rng.integers(0, 2, n).astype(bool),
            _probs(rng, n, 2),
            t.astype(float),
        )
    )
    t = rng.integers(0, 2, n).astype(float)
    out.append(
        _clf(
            "float_labels_column",
            t[:, None],
            rng.integers(0, 2, n)[:, None].astype(float),
            _probs(rng, n, 2)[:, None],
            t[:, None],
        )
    )
    out.append(_clf("two_samples_tied", [0, 1], [1, 1], [0.3, 0.3], [0.0, 1.0]))
    return out


def _regression() -> list[Case]:
    rng = np.random.default_rng(12)
    n = 20
    out = []

    def case(name: str, t: Any, p: Any) -> Case:
        t, p = np.asarray(t), np.asarray(p)
        return Case(name, {"true": t, "pred": p}, {"pred": t.copy()})

    out.append(case("random", rng.normal(size=n), rng.normal(size=n)))
    out.append(case("constant_y", np.full(n, 3.0), rng.normal(3, 1, size=n)))
    out.append(case("integers", rng.integers(-5, 5, n), rng.integers(-5, 5, n)))
    mo = rng.normal(size=(n, 3))
    mo[:, 1] = 2.0
    out.append(case("multioutput_constant_column", mo, rng.normal(size=(n, 3))))
    out.append(case("column_vs_1d", rng.normal(size=(n, 1)), rng.normal(size=n)))
    out.append(case("one_sample", [1.5], [2.0]))
    out.append(case("huge", rng.normal(size=n) * 1e200, rng.normal(size=n) * 1e200))
    out.append(case("tiny", rng.normal(size=n) * 1e-200, rng.normal(size=n) * 1e-200))
    return out


def _clustering() -> list[Case]:
    rng = np.random.default_rng(13)
    n = 30
    centers = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]])
    out = []

    def case(name: str, t: Any, p: Any, x: Any) -> Case:
        t, p = np.asarray(t), np.asarray(p)
        return Case(
            name, {"true": t, "pred": p, "features": np.asarray(x, float)}, {"pred": t.copy()}
        )

    t = rng.integers(0, 3, n)
    x = centers[t] + rng.normal(size=(n, 2))
    out.append(case("random", t, rng.integers(0, 4, n), x))
    out.append(
        case(
            "strings",
            np.array(list("abc"))[t],
            np.array(["u", "v", "w", "x"])[rng.integers(0, 4, n)],
            x,
        )
    )
    out.append(case("pred_single_cluster", t, np.zeros(n, int), x))
    out.append(case("pred_singletons", t, np.arange(n), x))
    out.append(case("true_single_cluster", np.zeros(n, int), rng.integers(0, 3, n), x))
    out.append(case("true_singletons", np.arange(n), rng.integers(0, 3, n), x))
    out.append(case("duplicate_points", t, rng.integers(0, 3, n), np.round(x / 4) * 4))
    out.append(case("coincident_points", t, rng.integers(0, 3, n), np.ones((n, 2))))
    out.append(case("three_points", [0, 0, 1], [0, 1, 1], [[0, 0], [0, 1], [3, 3]]))
    out.append(case("float_labels", t.astype(float), rng.integers(0, 3, n).astype(float), x))
    return out


def _entity_resolution() -> list[Case]:
    rng = np.random.default_rng(14)
    n = 30
    out = []

    def case(name: str, t: Any, p: Any) -> Case:
        t, p = np.asarray(t), np.asarray(p)
        return Case(name, {"true": t, "pred": p}, {"pred": t.copy()})

    t = rng.integers(0, 10, n)
    out.append(case("random", t, rng.integers(0, 12, n)))
    out.append(
        case(
            "strings",
            np.array([f"e{v}" for v in t]),
            np.array([f"p{v}" for v in rng.integers(0, 8, n)]),
        )
    )
    out.append(case("no_predicted_pair", t, np.arange(n)))
    out.append(case("pred_one_entity", t, np.zeros(n, int)))
    out.append(case("true_one_entity", np.zeros(n, int), rng.integers(0, 5, n)))
    out.append(case("no_true_pair", np.arange(n), rng.integers(0, 12, n)))
    out.append(case("no_pair_at_all", np.arange(n), np.arange(n)[::-1].copy()))
    out.append(case("two_records", [0, 0], [0, 1]))
    out.append(case("one_record", [3], [7]))
    return out


def _boxes(rng: np.random.Generator, m: int, zero_area: float = 0.2) -> np.ndarray:
    xy = rng.uniform(0, 40, size=(m, 2))
    wh = rng.uniform(1, 15, size=(m, 2))
    wh[rng.uniform(size=m) < zero_area, 0] = 0.0  # zero-area boxes
    return np.concatenate([xy, xy + wh], axis=1)


def _det_case(name: str, gt: dict[str, Any], det: dict[str, Any]) -> Case:
    gt = {k: np.asarray(v) for k, v in gt.items()}
    det = {k: np.asarray(v) for k, v in det.items()}
    rng = np.random.default_rng(len(gt["image"]))
    perfect = {
        "image": gt["image"].copy(),
        "label": gt["label"].copy(),
        "boxes": gt["boxes"].astype(float).copy(),
        "scores": rng.permutation(len(gt["image"])) / max(len(gt["image"]), 1) + 0.01,
    }
    return Case(name, {"true": gt, "pred": det}, {"pred": perfect}, frozenset({"boxes"}))


def _detection() -> list[Case]:
    rng = np.random.default_rng(15)
    out = []
    m = 10
    gb = _boxes(rng, m)
    gi, gl = rng.integers(0, 3, m), rng.integers(0, 2, m)
    gl[:2] = [0, 1]
    # detections: jittered ground truth, random boxes, zero-area boxes; distinct scores
    near = gb[:6] + rng.normal(0, 1.0, size=(6, 4)).clip(-1, 1)
    near[:, 2:] = np.maximum(near[:, 2:], near[:, :2])
    db = np.concatenate([near, _boxes(rng, 6)])
    di = np.concatenate([gi[:6], rng.integers(0, 3, 6)])
    dl = np.concatenate([gl[:6], rng.integers(0, 2, 6)])
    ds = rng.permutation(12) / 12 + 0.01
    gt = {"image": gi, "label": gl, "boxes": gb}
    det = {"image": di, "label": dl, "boxes": db, "scores": ds}
    out.append(_det_case("random", gt, det))
    out.append(
        _det_case(
            "string_ids",
            {
                **gt,
                "image": np.array([f"img{v}" for v in gi]),
                "label": np.array(["cat", "dog"])[gl],
            },
            {
                **det,
                "image": np.array([f"img{v}" for v in di]),
                "label": np.array(["cat", "dog"])[dl],
            },
        )
    )
    out.append(_det_case("with_ignored_gt", {**gt, "ignore": np.arange(m) % 4 == 3}, det))
    zb = gb.copy()
    zb[:, 2] = zb[:, 0]  # every ground-truth box has zero area
    out.append(
        _det_case(
            "zero_area_gt", {**gt, "boxes": zb}, {**det, "boxes": np.concatenate([zb[:6], db[6:]])}
        )
    )
    far = db.copy()
    far[:, [0, 2]] += 1000.0
    out.append(_det_case("no_overlap", gt, {**det, "boxes": far}))
    out.append(
        _det_case(
            "no_detections",
            gt,
            {
                "image": np.zeros(0, int),
                "label": np.zeros(0, int),
                "boxes": np.zeros((0, 4)),
                "scores": np.zeros(0),
            },
        )
    )
    out.append(_det_case("all_ground_truth_ignored", {**gt, "ignore": np.ones(m, bool)}, det))
    out.append(
        _det_case(
            "one_box",
            {"image": [0], "label": [0], "boxes": [[0, 0, 2, 2]]},
            {"image": [0], "label": [0], "boxes": [[1, 1, 3, 3]], "scores": [0.5]},
        )
    )
    return out


CASES: dict[str, list[Case]] = {
    "classification": _classification(),
    "regression": _regression(),
    "clustering": _clustering(),
    "entity_resolution": _entity_resolution(),
    "detection": _detection(),
}


# ------------------------------------------------------------------------- calling


def _data_args(defn: MetricDef) -> dict[str, tuple[str, str | None]]:
    table = ROLES[defn.domain]
    return {a: table[a] for a in inspect.signature(defn.kernel).parameters if a in table}


def _roles(defn: MetricDef) -> set[str]:
    return {role for role, _ in _data_args(defn).values()}


def _kwargs(defn: MetricDef, data: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for arg, (role, key) in _data_args(defn).items():
        v = data[role]
        out[arg] = v[key] if key is not None else v
    return out


@dataclass
class Outcome:
    value: Any = None
    error: rl.RanklensError | None = None


def _call(defn: MetricDef, data: dict[str, Any], params: dict[str, Any], where: str) -> Outcome:
    """The kernel's value (as ``ranklens score`` picks it) or our error; anything else
    (another library's exception or warning) fails."""
    kwargs = {**_kwargs(defn, data), **params}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = defn.kernel(**kwargs)
        except rl.RanklensError as exc:
            return Outcome(error=exc)
        except Exception as exc:  # the contract: no other exception reaches the caller
            pytest.fail(f"{where}: raised {type(exc).__name__}: {exc}")
    foreign = [
        f"{w.category.__name__}: {w.message}"
        for w in caught
        if not issubclass(w.category, rl.RanklensWarning)
    ]
    assert not foreign, f"{where}: another library's warning: {foreign}"
    return Outcome(value=_pick(defn.name, value))


def _where(defn: MetricDef, params: dict[str, Any], case: Case, what: str = "") -> str:
    args = ",".join(f"{k}={v!r}" for k, v in params.items())
    return f"{defn.name}({args}) on {case.name}{what}"


def _numbers(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=np.float64)


def _check_range(defn: MetricDef, params: dict[str, Any], value: Any, where: str) -> None:
    v = _numbers(value)
    if defn.range is None:
        return
    lo, hi = defn.range
    if not _nan_ok(params):
        assert not np.isnan(v).any(), f"{where}: NaN ({value!r}) outside {defn.range}"
    finite = v[~np.isnan(v)]
    assert ((finite >= lo) & (finite <= hi)).all(), (
        f"{where}: {value!r} outside the declared range {defn.range}"
    )


def _permutations(case: Case, rng: np.random.Generator) -> dict[str, np.ndarray]:
    out = {}
    for role, v in case.data.items():
        n = len(next(iter(v.values()))) if isinstance(v, dict) else len(v)
        out[role] = rng.permutation(n)
    if "boxes" not in case.tags:  # aligned samples: one permutation for all roles
        first = next(iter(out.values()))
        out = dict.fromkeys(out, first)
    return out


def _permute(data: dict[str, Any], perms: dict[str, np.ndarray]) -> dict[str, Any]:
    def one(v: Any, perm: np.ndarray) -> Any:
        if isinstance(v, dict):
            return {k: np.asarray(a)[perm] for k, a in v.items()}
        return np.asarray(v)[perm]

    return {role: one(v, perms[role]) for role, v in data.items()}


def _reordered(
    defn: MetricDef, params: dict[str, Any], value: Any, perms: dict[str, np.ndarray]
) -> Any:
    """The value on permuted samples, from the value on the original order: the same,
    except per-sample values (permuted) and iou's matrix (rows and columns permuted)."""
    if params.get("reduction") == "none":
        return np.asarray(value)[perms["true"]]
    if defn.name == "iou":
        return np.asarray(value)[np.ix_(perms["true"], perms["pred"])]
    return value


# ------------------------------------------------------------------------- (a) and (e)


@pytest.mark.parametrize("defn", FAMILIES, ids=lambda d: d.name)
def test_values_in_declared_range_and_independent_of_sample_order(defn: MetricDef) -> None:
    rng = np.random.default_rng(5)
    computed = 0
    for case in CASES[defn.domain]:
        perms = _permutations(case, rng)
        shuffled = _permute(case.data, perms)
        n = len(next(iter(case.data.values())))
        for params in _variants(defn):
            where = _where(defn, params, case)
            out = _call(defn, case.data, params, where)
            if out.error is not None:
                continue
            computed += 1
            _check_range(defn, params, out.value, where)
            # (e) sample order; a random subsample (silhouette's sample_size) is drawn by
            # position on purpose, so only the whole sample is order-free
            if (params.get("sample_size") or n) < n:
                continue
            other = _call(defn, shuffled, params, where + " (samples permuted)")
            assert other.error is None, f"{where}: permuted samples raised {other.error}"
            np.testing.assert_allclose(
                _numbers(other.value),
                _numbers(_reordered(defn, params, out.value, perms)),
                rtol=1e-9,
                atol=1e-12,
                err_msg=f"{where}: depends on the sample order",
            )
    assert computed, f"{defn.name}: no input gave a value"


# ------------------------------------------------------------------------- (b)


def _with_nan(a: Any) -> list[np.ndarray]:
    """``a`` with one NaN (numbers: float NaN; labels: NaN and None), first and last."""
    a = np.asarray(a)
    out = []
    for pos in {0, a.size - 1}:
        for bad in [NAN] if a.dtype.kind in "biuf" else [NAN, None]:
            b = a.astype(np.float64 if a.dtype.kind in "biuf" else object).copy()
            b.reshape(-1)[pos] = bad
            out.append(b)
    return out


@pytest.mark.parametrize("defn", FAMILIES, ids=lambda d: d.name)
def test_nan_in_any_data_argument_raises_input_error(defn: MetricDef) -> None:
    for case in CASES[defn.domain]:
        params: dict[str, Any] = {}
        if _call(defn, case.data, params, _where(defn, params, case)).error is not None:
            continue  # NaN must be refused where the clean input computes
        for arg, (role, key) in _data_args(defn).items():
            v = case.data[role]
            # the arrays the argument holds: (key in the role's dict or None, array)
            if key is not None:
                items = [(key, v[key])]
            elif isinstance(v, dict):
                items = list(v.items())
            else:
                items = [(None, v)]
            for k, arr in items:
                if np.asarray(arr).size == 0:
                    continue
                for bad in _with_nan(arr):
                    data = dict(case.data)
                    data[role] = {**v, k: bad} if k is not None else bad
                    where = _where(defn, params, case, f" with NaN in {arg} {k or ''}")
                    out = _call(defn, data, params, where)
                    assert isinstance(out.error, rl.InputError), (
                        f"{where}: gave {out.value!r}, not an InputError ({out.error!r})"
                    )


# ------------------------------------------------------------------------- (c)


def _invalid(p: Param) -> list[Any]:
    if p.kind == "choice":
        return ["bogus", 3, None, ["x"]]
    bad: list[Any] = ["bogus", INF, -INF, True, [1.0]]
    if "nan" not in (p.choices or ()):  # a parameter may name NaN as a setting
        bad.append(NAN)
    if p.minimum is not None:
        bad.append(p.minimum - 1)
        if getattr(p, "open_minimum", False):
            bad.append(p.minimum)
    only = getattr(p, "values", None)
    if only:
        bad.append(next(x for x in (0.5, 2.5, -1.5) if x not in only))
    if p.maximum is not None:
        bad.append(p.maximum + 1)
        if p.open_maximum:
            bad.append(p.maximum)
    if p.kind == "int":
        bad.append(2.5)
    return bad


def _spelled(value: Any) -> str | None:
    """The metric-name spelling of a value (None: the grammar has none)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None or isinstance(value, list):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return repr(value)


PARAMS = [(d, p) for d in FAMILIES for p in d.params]


@pytest.mark.parametrize("defn,p", PARAMS, ids=[f"{d.name}-{p.name}" for d, p in PARAMS])
def test_invalid_parameters_raise_naming_the_parameter(defn: MetricDef, p: Param) -> None:
    # through the metric grammar / a Metric value
    for bad in _invalid(p):
        with pytest.raises(rl.MetricParameterError) as info:
            rl.get_metric(Metric(defn.name, None, ((p.name, bad),)))
        assert p.name in str(info.value), str(info.value)
        text = _spelled(bad)
        if text is not None:
            with pytest.raises(rl.MetricParameterError, match=p.name):
                rl.get_metric(f"{defn.name}({p.name}={text})")
    # as a keyword of the kernel, on an input its defaults compute
    case = next(
        c for c in CASES[defn.domain] if _call(defn, c.data, {}, _where(defn, {}, c)).error is None
    )
    for bad in _invalid(p):
        if any(bad is x or bad == x for x in DOCUMENTED.get(p.name, [])):
            continue
        where = _where(defn, {p.name: bad}, case)
        out = _call(defn, case.data, {p.name: bad}, where)
        assert out.error is not None, f"{where}: accepted, gave {out.value!r}"
        assert p.name in str(out.error), f"{where}: the error does not name it: {out.error}"


def _accepted_values_id(item: tuple[MetricDef, Param]) -> str:
    return f"{item[0].name}-{item[1].name}"


def _xfail_catalogue(items: list[tuple[MetricDef, Param]]) -> list[Any]:
    out = []
    for d, p in items:
        why = CATALOGUE_ISSUES.get((d.name, p.name))
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        out.append(pytest.param(d, p, marks=marks, id=_accepted_values_id((d, p))))
    return out


@pytest.mark.parametrize("defn,p", _xfail_catalogue(PARAMS))
def test_every_value_the_catalogue_accepts_is_computed(defn: MetricDef, p: Param) -> None:
    refused = {}
    for v in _sample(p):
        params = dict(rl.get_metric(Metric(defn.name, None, ((p.name, v),))).params)
        errors = [
            _call(defn, c.data, params, _where(defn, params, c)).error for c in CASES[defn.domain]
        ]
        if all(e is not None for e in errors):
            refused[repr(v)] = str(errors[0])
    assert not refused, (
        f"{defn.name}: the catalogue accepts values the kernel refuses on every input: {refused}"
    )


@pytest.mark.parametrize("defn", FAMILIES, ids=lambda d: d.name)
def test_kernel_defaults_are_the_catalogue_defaults(defn: MetricDef) -> None:
    sig = inspect.signature(defn.kernel).parameters
    for p in defn.params:
        assert p.name in sig, f"{defn.name}: the kernel takes no {p.name!r}"
        default = sig[p.name].default
        assert default is not inspect.Parameter.empty, (
            f"{defn.name}: the kernel has no default for {p.name!r} (catalogue: "
            f"{p.default!r}); ranklens score passes only the parameters given"
        )
        assert default == p.default, (
            f"{defn.name}: kernel default {p.name}={default!r}, catalogue {p.default!r}"
        )
    # every data argument the kernel needs is one the table supplies
    for a, prm in sig.items():
        if prm.default is inspect.Parameter.empty and prm.kind is not prm.VAR_KEYWORD:
            assert a in ROLES[defn.domain], f"{defn.name}: cannot supply {a!r}"


# ------------------------------------------------------------------------- (d)

# metrics with a direction and a perfect prediction (internal clustering indices, of
# the data X, have none)
DIRECTED = [
    d
    for d in FAMILIES
    if d.higher_is_better is not None and d.name not in NO_PERFECT and "features" not in _roles(d)
]


@pytest.mark.parametrize("defn", DIRECTED, ids=lambda d: d.name)
def test_perfect_prediction_scores_at_least_as_well_as_random(defn: MetricDef) -> None:
    better: Callable[[np.ndarray, np.ndarray], np.ndarray] = (
        np.greater_equal if defn.higher_is_better else np.less_equal
    )
    compared = 0
    for case in CASES[defn.domain]:
        assert case.perfect is not None
        perfect_data = {**case.data, **case.perfect}
        for params in _variants(defn):
            where = _where(defn, params, case)
            rand = _call(defn, case.data, params, where)
            best = _call(defn, perfect_data, params, where + " (perfect prediction)")
            if best.error is not None:
                assert rand.error is not None, (
                    f"{where}: the perfect prediction raised {best.error!r}, the random "
                    f"one gave {rand.value!r}"
                )
                continue
            if rand.error is not None:
                continue
            b, r = _numbers(best.value), _numbers(rand.value)
            if b.shape != r.shape:
                continue
            ok = np.isnan(b) | np.isnan(r) | better(b + 0.0, r - 0.0) | np.isclose(b, r)
            assert ok.all(), (
                f"{where}: perfect {best.value!r} vs random {rand.value!r} "
                f"(higher_is_better={defn.higher_is_better})"
            )
            compared += 1
    assert compared, f"{defn.name}: nothing compared"


# ------------------------------------------------------------------------- coverage


def test_every_family_metric_is_covered() -> None:
    domains = {d.domain for d in FAMILIES}
    assert domains == HARNESS_DOMAINS
    # every metric outside ranking is in this harness or in one of its own below
    others = {d.name for d in CATALOGUE if d.domain != "ranking"}
    assert others == (
        {d.name for d in FAMILIES}
        | OWN_HARNESS
        | {d.name for d in RECSYS}
        | {d.name for d in ONLINE}
        | {d.name for d in OVERLAP}
    )
    for d in FAMILIES:
        assert _data_args(d), f"{d.name}: no data argument found for {d.impl}"
        assert _variants(d)


# ------------------------------------------------------------------------- documentation

NON_RANKING = [d for d in CATALOGUE if d.domain != "ranking"]


@pytest.mark.parametrize("defn", NON_RANKING, ids=lambda d: d.name)
def test_every_entry_has_a_kernel_and_documents_its_formula_source_and_example(
    defn: MetricDef,
) -> None:
    from tests.helpers import doc_gaps

    assert callable(defn.kernel), f"{defn.name}: {defn.impl} does not import"
    assert defn.domain in rl.metrics.catalogue.FAMILIES
    shared = sum(d.impl == defn.impl for d in CATALOGUE) > 1
    gaps = doc_gaps(defn.kernel.__doc__, defn.name, shared)
    assert not gaps, f"{defn.name}: the docstring of {defn.impl} lacks {gaps}"


def test_the_listing_has_every_entry_once_by_family_and_imports_no_kernel() -> None:
    import subprocess
    import sys

    from ranklens.metrics import describe, metric_table

    rows = metric_table()
    assert [r["name"] for r in rows] == sorted(
        (d.name for d in CATALOGUE),
        key=lambda n: (list(rl.metrics.catalogue.FAMILIES).index(rl.REGISTRY[n].domain), n),
    )
    assert len({tuple(r) for r in rows}) == 1  # one set of keys: a table
    for d in CATALOGUE:
        for name in (d.name, *d.aliases):
            assert describe(name)["name"] == d.name
    with pytest.raises(rl.InputError, match="families"):
        metric_table("recommenders")
    code = (
        "import sys, ranklens.metrics as m; m.metric_table(); "
        "print(sorted(k for k in sys.modules if k.startswith(('ranklens.recsys', "
        "'ranklens.detection', 'ranklens.classification', 'ranklens.clustering', "
        "'ranklens.regression', 'ranklens.entity_resolution', 'sklearn'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


# ------------------------------------------------------------------------- recommenders

RECSYS = [d for d in CATALOGUE if d.domain == "recsys"]
RECSYS_VARIANTS = [(d, v) for d in RECSYS for v in _variants(d)]


def _spelled_metric(defn: MetricDef, params: dict[str, Any], k: int | None) -> str:
    m = Metric(defn.name, k, tuple(sorted(params.items())))
    return str(rl.get_metric(m))


def _recsys_case(seed: int) -> dict[str, Any]:
    """Random recommendations (ties included), held-out and training logs, item
    categories and features (zero-free), every recommended item seen in training."""
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(2, 8)), int(rng.integers(3, 10))
    items = [f"i{j}" for j in range(n_items)]
    users = [f"u{i}" for i in range(n_users)]
    rec = [
        (u, str(i)) for u in users for i in rng.choice(items, rng.integers(1, n_items + 1), False)
    ]
    held = list(dict.fromkeys((u, str(rng.choice(items))) for u in users for _ in range(2)))
    # on odd seeds the last user has no training interaction (no profile)
    train_users = [*users[: max(1, n_users - seed % 2)], "t0", "t1"]
    train = [(str(rng.choice(train_users)), i) for i in items]
    train += [(str(rng.choice(train_users)), str(rng.choice(items))) for _ in range(3 * n_items)]
    return {
        "recs": {
            "user_id": [u for u, _ in rec],
            "item_id": [i for _, i in rec],
            "score": rng.integers(0, 3, len(rec)).astype(float),  # ties
        },
        "held": {"user_id": [u for u, _ in held], "item_id": [i for _, i in held]},
        "train": {"user_id": [u for u, _ in train], "item_id": [i for _, i in train]},
        "catalog": items,
        "categories": {i: "ab"[int(rng.integers(0, 2))] for i in items},
        "item_features": {i: rng.normal(size=3) + 0.05 for i in items},
    }


def _recsys_inputs(defn: MetricDef, case: dict[str, Any], items: str) -> dict[str, Any]:
    """The keywords of the inputs ``defn`` declares (one of each group: ``items``
    picks features or categories), and nothing else."""
    kw: dict[str, Any] = {}
    for group in defn.required_inputs:
        names = [i.name for i in group]
        name = items if items in names else names[0]
        if name != "held_out":
            kw[next(i.keyword for i in group if i.name == name)] = case[name]
    return kw


def _recsys_value(
    defn: MetricDef, metric: str, case: dict[str, Any], items: str = "categories"
) -> tuple[np.ndarray, float]:
    """The per-user values (empty for a metric of all lists) and the summary value
    of ``metric``, computed with only the inputs ``defn`` declares."""
    import warnings as w

    held = case["held"]
    with w.catch_warnings():
        w.simplefilter("ignore", rl.RanklensWarning)  # users without a profile: counted
        ev = rl.recsys.evaluate_interactions(
            case["recs"], held, [metric], **_recsys_inputs(defn, case, items)
        )
    per_user = ev.result.values[metric] if defn.per_query else np.zeros(0)
    return np.asarray(per_user), ev.summary()[metric]


@pytest.mark.parametrize(
    "defn,params",
    RECSYS_VARIANTS,
    ids=[
        f"{d.name}-{'-'.join(f'{k}={v}' for k, v in p.items()) or 'default'}"
        for d, p in RECSYS_VARIANTS
    ],
)
def test_recommender_values_lie_in_the_declared_range(
    defn: MetricDef, params: dict[str, Any]
) -> None:
    if defn.name == "serendipity" and params.get("threshold") is None:
        params = {**params, "threshold": 0.5}
    lo, hi = defn.range if defn.range is not None else (-INF, INF)
    computed = 0
    for seed in range(8):
        case = _recsys_case(seed)
        for k in (None, 1, 3):
            for items in ("categories", "item_features"):
                metric = _spelled_metric(defn, params, k)
                try:
                    per_user, mean = _recsys_value(defn, metric, case, items)
                except rl.RanklensError as exc:
                    # only the documented refusals: a no_profile=error user, no list with
                    # two items for ILD, fewer than 2 users for personalisation
                    assert any(
                        s in str(exc) for s in ("profile", "two or more items", "at least 2")
                    ), f"{metric} (seed {seed}): {exc}"
                    continue
                computed += 1
                defined = per_user[~np.isnan(per_user)]
                assert ((defined >= lo) & (defined <= hi)).all(), (
                    f"{metric} (seed {seed}): per-user {per_user} outside [{lo}, {hi}]"
                )
                assert lo <= mean <= hi, f"{metric} (seed {seed}): {mean} outside [{lo}, {hi}]"
    assert computed, f"{defn.name}: no input gave a value"


def test_an_even_spread_has_gini_zero_not_below() -> None:
    # 5000 items recommended equally often: the sum of (2j - n - 1) p_j rounds to -4.5e-17
    n = 5000
    recs = {
        "user_id": [f"u{i}" for i in range(n)],
        "item_id": [f"i{i}" for i in range(n)],
        "score": [1.0] * n,
    }
    ev = rl.recsys.evaluate_interactions(recs, None, ["gini"], catalog=recs["item_id"])
    assert ev.totals["gini"] == 0.0


def _world() -> dict[str, dict[str, Any]]:
    """Four users trained on the popular items a, b (category x); item c, d are x, e-h
    are y and each seen once.  ``conform``: everyone gets a, b (popular, one
    category, on-profile, identical lists); ``diverse``: each user one x item and one
    unseen-category y item, all lists different, the y items relevant."""
    users = ["u1", "u2", "u3", "u4"]
    train = {
        "user_id": [u for u in users for _ in (0, 1)] + ["t1", "t2", "t3", "t4", "t5", "t6"],
        "item_id": ["a", "b"] * 4 + ["c", "d", "e", "f", "g", "h"],
    }

    def recs(lists: list[list[str]]) -> dict[str, Any]:
        return {
            "user_id": [u for u, lst in zip(users, lists, strict=True) for _ in lst],
            "item_id": [i for lst in lists for i in lst],
            "rank": [r + 1 for lst in lists for r in range(len(lst))],
        }

    base = {
        "held": {"user_id": users * 2, "item_id": ["e", "f", "g", "h", "a", "b", "c", "d"]},
        "train": train,
        "catalog": list("abcdefgh"),
        "categories": dict(zip("abcdefgh", "xxxxyyyy", strict=True)),
        "item_features": {
            i: [1.0, 0.0] if c == "x" else [0.0, 1.0]
            for i, c in zip("abcdefgh", "xxxxyyyy", strict=True)
        },
    }
    return {
        "conform": {**base, "recs": recs([["a", "b"]] * 4)},
        "diverse": {**base, "recs": recs([["a", "e"], ["b", "f"], ["c", "g"], ["d", "h"]])},
    }


@pytest.mark.parametrize("defn", RECSYS, ids=lambda d: d.name)
def test_recommender_direction_a_better_list_scores_better(defn: MetricDef) -> None:
    assert defn.higher_is_better is not None, f"{defn.name}: declare a direction"
    world = _world()
    params = {"threshold": 0.5} if defn.name == "serendipity" else {}
    metric = _spelled_metric(defn, params, None)
    for items in ("categories", "item_features"):
        _, worse = _recsys_value(defn, metric, world["conform"], items)
        _, better = _recsys_value(defn, metric, world["diverse"], items)
        assert (better > worse) if defn.higher_is_better else (better < worse), (
            f"{metric} ({items}): diverse {better} vs conform {worse}, "
            f"higher_is_better={defn.higher_is_better}"
        )


@pytest.mark.parametrize("defn", RECSYS, ids=lambda d: d.name)
def test_recommender_inputs_are_declared_exactly(defn: MetricDef) -> None:
    case = _recsys_case(1)
    params = {"threshold": 0.5} if defn.name == "serendipity" else {}
    metric = _spelled_metric(defn, params, 2)
    _recsys_value(defn, metric, case)  # the declared inputs suffice
    kw = _recsys_inputs(defn, case, "categories")
    for group in defn.required_inputs:
        given = dict(kw)
        for i in group:
            given.pop(i.keyword, None)
        held = None if any(i.name == "held_out" for i in group) else case["held"]
        with pytest.raises(rl.InputError, match=f"{group[0].keyword}=") as info:
            rl.recsys.evaluate_interactions(case["recs"], held, [metric], **given)
        assert metric in str(info.value)
    assert defn.cutoff == "optional" and defn.kernel.__module__.startswith("ranklens.recsys")


# ------------------------------------------------------------------------- COCO


def _coco(case: Case, role: str, perfect: bool = False) -> dict[str, Any]:
    data = (case.perfect or {})[role] if perfect else case.data[role]
    boxes = np.asarray(data["boxes"], dtype=float).reshape(-1, 4)
    out = {
        "image_id": np.asarray(data["image"]),
        "category_id": np.asarray(data["label"]),
        "bbox": np.column_stack([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]]).tolist(),
    }
    if "scores" in data:
        out["score"] = np.asarray(data["scores"], dtype=float)
    if "ignore" in data:
        out["ignore"] = np.asarray(data["ignore"])
    return out


def _scaled(case: Case, factor: float) -> Case:
    """The case with every box ``factor`` times larger (medium and large objects)."""

    def scale(d: dict[str, Any]) -> dict[str, Any]:
        return {k: (np.asarray(v) * factor if k == "boxes" else v) for k, v in d.items()}

    perfect = {r: scale(v) for r, v in (case.perfect or {}).items()}
    return Case(f"{case.name}_x{factor:g}", {r: scale(v) for r, v in case.data.items()}, perfect)


COCO_CASES = CASES["detection"] + [_scaled(c, f) for c in CASES["detection"] for f in (4, 12)]
COCO = [d for d in CATALOGUE if d.name in OWN_HARNESS]
COCO_VARIANTS = [(d, v) for d in COCO for v in _variants(d)]


@pytest.mark.parametrize(
    "defn,params", COCO_VARIANTS, ids=[f"{d.name}-{sorted(p.items())}" for d, p in COCO_VARIANTS]
)
def test_coco_values_in_range_and_perfect_detections_score_best(
    defn: MetricDef, params: dict[str, Any]
) -> None:
    lo, hi = defn.range if defn.range is not None else (-INF, INF)
    computed = 0
    for case in COCO_CASES:
        gt, det = _coco(case, "true"), _coco(case, "pred")
        try:
            value = defn.kernel(gt, det, **params)
        except rl.RanklensError:
            continue
        best = defn.kernel(gt, _coco(case, "pred", perfect=True), **params)
        if math.isnan(value):  # no ground truth in the area range: undefined, documented
            assert math.isnan(best)
            continue
        computed += 1
        assert lo <= value <= hi and lo <= best <= hi, f"{case.name}: {value}, {best}"
        assert best >= value - 1e-12, f"{case.name}: perfect {best} < random {value}"
    assert computed, f"{defn.name}{params}: no case gave a value"


@pytest.mark.parametrize("defn", COCO, ids=lambda d: d.name)
def test_coco_parameters_checked_and_defaults_agree(defn: MetricDef) -> None:
    case = CASES["detection"][0]
    gt, det = _coco(case, "true"), _coco(case, "pred")
    sig = inspect.signature(defn.kernel).parameters
    for p in defn.params:
        assert sig[p.name].default == p.default
        for bad in _invalid(p):
            with pytest.raises(rl.RanklensError, match=p.name):
                defn.kernel(gt, det, **{p.name: bad})
    bad_box = {**det, "bbox": [[NAN, 0, 1, 1], *det["bbox"][1:]]}
    with pytest.raises(rl.InputError):
        defn.kernel(gt, bad_box)


# ------------------------------------------------------------------------- online

ONLINE = [d for d in CATALOGUE if d.domain == "online"]

# catalogue spelling -> the `ranklens ab` / ranklens.online spelling of the same metric
ONLINE_SPELLINGS = [
    ("proportion(event=purchase)", "proportion(purchase)"),
    ("conversion(event=purchase)", "proportion(purchase)"),
    ("mean(event=purchase)", "mean(purchase)"),
    ("mean(event=page_view,agg=count)", "mean(count(page_view))"),
    ("mean(event=purchase,agg=any)", "mean(any(purchase))"),
    ("ratio(numerator=click,denominator=impression)", "ratio(click, impression)"),
    (
        "ratio(numerator=click,denominator=impression,numerator_agg=count,denominator_agg=count)",
        "ratio(count(click), count(impression))",
    ),
]


@pytest.mark.parametrize("spec,ab", ONLINE_SPELLINGS)
def test_online_entries_build_the_metric_the_ab_grammar_reads(spec: str, ab: str) -> None:
    from ranklens.online.metrics import OnlineMetric

    m = rl.get_metric(spec)
    assert m.definition.domain == "online"
    assert m.definition.kernel(**dict(m.params)) == OnlineMetric.parse(ab)


@pytest.mark.parametrize("defn", ONLINE, ids=lambda d: d.name)
def test_online_parameters_checked_and_defaults_agree(defn: MetricDef) -> None:
    sig = inspect.signature(defn.kernel).parameters
    assert {p.name for p in defn.params} <= set(sig)
    for p in defn.params:
        default = sig[p.name].default
        # an event type has no default: the kernel requires it
        assert default == p.default or (p.kind == "text" and default is inspect.Parameter.empty)
        bad_values: list[Any] = ["", " click", 3, None] if p.kind == "text" else ["median", 3, None]
        for bad in bad_values:
            with pytest.raises(rl.MetricParameterError, match=p.name):
                rl.get_metric(Metric(defn.name, None, ((p.name, bad),)))
    with pytest.raises(rl.MetricParameterError, match="no cutoff"):
        rl.get_metric(f"{defn.name}@10")
    # a missing event type is our error, not a TypeError
    with pytest.raises(rl.RanklensError):
        defn.kernel(**{p.name: p.default for p in defn.params})


# ------------------------------------------------------------------------- run to run

OVERLAP = [d for d in CATALOGUE if d.domain == "overlap"]


def _overlap_runs(seed: int) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Two runs: shared and own documents, tied scores, lists of 0-12 documents
    (empty rankings), a query of one run only."""
    rng = np.random.default_rng(seed)
    ra: dict[str, dict[str, float]] = {}
    rb: dict[str, dict[str, float]] = {}
    for q in range(15):
        pool = [f"d{i}" for i in range(int(rng.integers(1, 15)))]
        for run in (ra, rb):
            n = int(rng.integers(0, min(12, len(pool)) + 1))
            docs = rng.choice(pool, size=n, replace=False)
            run[f"q{q}"] = {str(d): float(np.round(rng.normal(), 1)) for d in docs}
    ra["only_a"] = {"d0": 1.0}
    return ra, rb


def _overlap_variants(defn: MetricDef) -> list[str]:
    out = [defn.name]
    for p in defn.params:
        vals = list(p.choices or ()) if p.kind == "choice" else [0.01, 0.5, 0.99]
        out += [f"{defn.name}({p.name}={v})" for v in vals]
    return [f"{m}{k}" for m in out for k in ("", "@1", "@3")]


@pytest.mark.parametrize("defn", OVERLAP, ids=lambda d: d.name)
def test_overlap_values_in_range_identical_runs_agree_and_row_order_is_free(
    defn: MetricDef,
) -> None:
    names = _overlap_variants(defn)
    lo, hi = defn.range or (-INF, INF)
    for seed in (0, 1, 2):
        ra, rb = _overlap_runs(seed)
        for queries in ("both", "either"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", rl.RanklensWarning)
                res = rl.compare_runs(
                    rl.Run.from_dict(ra), rl.Run.from_dict(rb), names, queries=queries
                )
            for name in names:
                v = res.values[name]
                finite = v[~np.isnan(v)]
                assert ((finite >= lo - 1e-12) & (finite <= hi + 1e-12)).all(), name
                if defn.name != "run_kendall_tau":
                    assert not np.isnan(v).any(), name
        # rows in another order: the same values (ties broken by doc id)
        rows = [(q, d, s) for q, docs in ra.items() for d, s in docs.items()]
        perm = np.random.default_rng(seed).permutation(len(rows))
        shuffled = rl.Run.from_arrays(
            *map(list, zip(*[rows[i] for i in perm], strict=True)),
            empty_queries=[q for q, docs in ra.items() if not docs],
        )
        same = rl.compare_runs(rl.Run.from_dict(ra), shuffled, names)
        ident = rl.compare_runs(rl.Run.from_dict(ra), rl.Run.from_dict(ra), names)
        for name in names:
            np.testing.assert_array_equal(same.values[name], ident.values[name], err_msg=name)
            v = ident.values[name]
            if "variant=" in name and "variant=ext" not in name and defn.name == "rbo":
                continue  # trunc and the bounds of identical lists are below / above 1
            if "variant=c" in name:
                continue  # tau-c of identical lists with ties is below 1
            assert np.all(np.isnan(v) | (np.abs(v - 1.0) < 1e-12)), name


@pytest.mark.parametrize("defn", OVERLAP, ids=lambda d: d.name)
def test_overlap_invalid_parameters_raise_naming_the_parameter(defn: MetricDef) -> None:
    for p in defn.params:
        bads: list[Any] = ["bogus", 3, None] if p.kind == "choice" else ["x", NAN, INF, 0, 1]
        for bad in bads:
            with pytest.raises(rl.MetricParameterError, match=repr(p.name)):
                rl.get_metric(Metric(defn.name, None, ((p.name, bad),)))
    assert callable(defn.kernel)
