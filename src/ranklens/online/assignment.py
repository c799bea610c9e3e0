"""Deterministic assignment of units (users, sessions, ...) to experiment variants.

How a unit is placed, for one :class:`Plan` (all steps are pure functions of
the unit id and the plan, so every process on every machine agrees):

1. **Holdout.**  With ``Plan(holdout=h)``, a unit whose bucket
   ``hash(holdout_salt, unit) mod B`` is below ``round(h * B)`` is held out of
   every experiment of the plan (a global holdout for measuring the long-term
   effect of everything launched).
2. **Layer.**  Experiments sharing a ``layer`` are mutually exclusive: the
   layer's bucket ``hash("layer/" + layer, unit) mod B`` is split into
   disjoint ranges ``[offset, offset + traffic)`` (as fractions of ``B``), one
   per experiment, so no unit is in two experiments of one layer.  An
   experiment without a layer has a private one (named after it); its
   ``traffic`` then just says which fraction of units take part.
   Experiments in different layers overlap independently (Tang et al. 2010).
3. **Variant.**  A unit in the experiment's range gets the variant of its
   bucket ``hash(salt, unit) mod B`` (the salt defaults to the experiment
   name): variant ``i`` owns the buckets ``[c(i-1), c(i))`` with
   ``c(i) = floor(B * (w_1 + ... + w_i) / sum(w) + 1/2)``.

``hash`` is :func:`ranklens.online.hash_units` (``Plan.algorithm``: FNV-1a 64 with
the MurmurHash3 ``fmix64`` finaliser, ``"fnv1a-fmix64"``, by default; ``"sha256"``
on request) and ``B`` is ``Plan.buckets`` (10,000 by default).  The variant hash is separate from
the layer and holdout hashes, so ramping an experiment's traffic up only adds
units (nobody switches variant), and assignments of experiments with
different salts are statistically independent.

Reference: D. Tang, A. Agarwal, D. O'Brien, M. Meyer, "Overlapping Experiment
Infrastructure: More, Better, Faster Experimentation", KDD 2010.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pyarrow as pa

from ranklens.errors import InputError
from ranklens.online._data import as_ids
from ranklens.online._hashing import (
    DEFAULT_ALGORITHM,
    HashAlgorithm,
    _hash_ids,
    check_algorithm,
    check_salt,
)

__all__ = [
    "HOLDOUT",
    "NOT_ENROLLED",
    "Assignment",
    "Assignments",
    "Experiment",
    "Plan",
    "assign",
    "bucket_units",
]

#: Code of a unit outside the experiment (outside its traffic, or in another
#: experiment of its layer).
NOT_ENROLLED = -1
#: Code of a unit in the plan's global holdout.
HOLDOUT = -2


def bucket_units(
    units: Any, salt: str, buckets: int = 10_000, *, algorithm: HashAlgorithm = DEFAULT_ALGORITHM
) -> np.ndarray:
    """Bucket of every unit: ``hash_units(units, salt, algorithm) mod buckets``.

    Returns an ``int64`` array with values in ``[0, buckets)``.  The modulo
    bias is at most ``buckets / 2**64``, i.e. nil.
    """
    algorithm = check_algorithm(algorithm, "bucket_units")
    salt = check_salt(salt, "bucket_units")
    _check_buckets(buckets, "bucket_units")
    ids = as_ids(units, "bucket_units: units")
    return _buckets(ids, salt, buckets, algorithm)


def _buckets(ids: pa.Array, salt: str, buckets: int, algorithm: HashAlgorithm) -> np.ndarray:
    return (_hash_ids(ids, salt, algorithm) % np.uint64(buckets)).astype(np.int64)


def _check_buckets(buckets: Any, where: str) -> int:
    if isinstance(buckets, bool) or not isinstance(buckets, (int, np.integer)) or buckets < 2:
        raise InputError(f"{where}: buckets must be an integer >= 2, got {buckets!r}.")
    return int(buckets)


def _check_fraction(value: Any, name: str, where: str, *, low_open: bool) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    v = float(value) if ok else math.nan
    if not ok or not math.isfinite(v) or v < 0 or v > 1 or (low_open and v == 0):
        rng = "(0, 1]" if low_open else "[0, 1]"
        raise InputError(f"{where}: {name} must be a number in {rng}, got {value!r}.")
    return v


def _cut(fraction: float, buckets: int) -> int:
    return math.floor(fraction * buckets + 0.5)


@dataclass(frozen=True)
class Experiment:
    """One randomised experiment: named, weighted variants.

    Parameters
    ----------
    name
        Experiment name (non-empty string).
    variants
        ``{variant: weight}`` with positive weights (relative; they need not
        sum to 1), or a sequence of names for an equal split.  Order matters:
        it fixes the bucket ranges.
    control
        The control variant; defaults to the first one.
    salt
        Salt of the variant hash; defaults to ``name``.  Give a new experiment
        a new salt (re-using a salt re-uses the same split of users).
    traffic
        Fraction of the layer's units that take part, in ``(0, 1]`` (default 1:
        all of them).
    layer
        Name of the layer; experiments of one layer never share a unit.
        ``None``: a private layer named after the experiment.
    offset
        Start of the experiment's range in its layer, as a fraction in
        ``[0, 1)``; ``None`` packs it after the experiments declared before it
        in the same layer.

    >>> exp = Experiment("ranker_v2", {"control": 1, "treatment": 1})
    >>> exp.control, exp.allocation(100)
    ('control', {'control': 0.5, 'treatment': 0.5})
    """

    name: str
    variants: Mapping[str, float] | Sequence[str]
    control: str | None = None
    salt: str | None = None
    traffic: float = 1.0
    layer: str | None = None
    offset: float | None = None

    def __post_init__(self) -> None:
        where = f"Experiment {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"Experiment: the name must be a non-empty string, got {self.name!r}.")
        raw = self.variants
        if isinstance(raw, Mapping):
            items = list(raw.items())
        elif isinstance(raw, Sequence) and not isinstance(raw, (str, bytes)):
            items = [(v, 1.0) for v in raw]
        else:
            raise InputError(
                f"{where}: variants must be a mapping {{name: weight}} or a list of names, "
                f"got {type(raw).__name__}."
            )
        if len(items) < 2:
            raise InputError(f"{where}: needs at least two variants, got {len(items)}.")
        weights: dict[str, float] = {}
        for v, w in items:
            if not isinstance(v, str) or not v:
                raise InputError(f"{where}: variant names must be non-empty strings, got {v!r}.")
            if v in weights:
                raise InputError(f"{where}: variant {v!r} is listed twice.")
            okw = isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, bool)
            if not okw or not math.isfinite(float(w)) or float(w) <= 0:
                raise InputError(
                    f"{where}: the weight of variant {v!r} must be a positive number, got {w!r}."
                )
            weights[v] = float(w)
        object.__setattr__(self, "variants", weights)
        if self.control is None:
            object.__setattr__(self, "control", items[0][0])
        elif self.control not in weights:
            raise InputError(
                f"{where}: control={self.control!r} is not one of its variants {list(weights)}."
            )
        if self.salt is not None:
            check_salt(self.salt, where)
        object.__setattr__(
            self, "traffic", _check_fraction(self.traffic, "traffic", where, low_open=True)
        )
        if self.layer is not None and (not isinstance(self.layer, str) or not self.layer):
            raise InputError(
                f"{where}: layer must be a non-empty string or None, got {self.layer!r}."
            )
        if self.offset is not None:
            off = _check_fraction(self.offset, "offset", where, low_open=False)
            if off + self.traffic > 1 + 1e-12:
                raise InputError(
                    f"{where}: offset + traffic = {off} + {self.traffic} exceeds 1; the "
                    "experiment's range must fit in its layer."
                )
            object.__setattr__(self, "offset", off)

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    @property
    def weights(self) -> dict[str, float]:
        """``{variant: weight}`` in declaration order (a copy)."""
        return dict(cast("Mapping[str, float]", self.variants))

    @property
    def variant_names(self) -> tuple[str, ...]:
        """Variant names in declaration order."""
        return tuple(self.weights)

    @property
    def hash_salt(self) -> str:
        """The salt actually used for the variant hash."""
        return self.salt if self.salt is not None else self.name

    @property
    def layer_name(self) -> str:
        """The layer actually used (the experiment's name for a private layer)."""
        return self.layer if self.layer is not None else self.name

    def boundaries(self, buckets: int = 10_000) -> np.ndarray:
        """Cumulative bucket boundaries ``c(0)=0 < c(1) < ... < c(k)=buckets``."""
        buckets = _check_buckets(buckets, f"Experiment {self.name!r}")
        w = np.array(list(self.weights.values()), dtype=np.float64)
        cum = np.cumsum(w) / w.sum()
        cuts = np.floor(cum * buckets + 0.5).astype(np.int64)
        cuts[-1] = buckets
        bounds = np.concatenate([[0], cuts])
        empty = np.flatnonzero(np.diff(bounds) == 0)
        if empty.size:
            names = [self.variant_names[i] for i in empty]
            raise InputError(
                f"Experiment {self.name!r}: variant(s) {names} get no bucket out of {buckets}; "
                "raise their weight or use more buckets."
            )
        return bounds

    def allocation(self, buckets: int = 10_000) -> dict[str, float]:
        """Realised share of each variant among enrolled units (bucket counts / buckets).

        This, not the raw weights, is what the sample-ratio-mismatch check
        expects, since weights are rounded to whole buckets.
        """
        sizes = np.diff(self.boundaries(buckets))
        return {v: float(s) / buckets for v, s in zip(self.variant_names, sizes, strict=True)}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (the inverse of ``Experiment(**d)``)."""
        d: dict[str, Any] = {"name": self.name, "variants": self.weights, "control": self.control}
        for key in ("salt", "layer", "offset"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.traffic != 1.0:
            d["traffic"] = self.traffic
        return d

    def assign(
        self, units: Any, *, buckets: int = 10_000, algorithm: HashAlgorithm = DEFAULT_ALGORITHM
    ) -> Assignment:
        """Assign ``units`` with this experiment alone (a plan of one experiment)."""
        return Plan([self], buckets=buckets, algorithm=algorithm).assign(units)[self.name]


@dataclass(frozen=True, eq=False)
class Assignment:
    """Variants of one experiment for a batch of units.

    ``codes[i]`` is the index into ``variants`` of unit ``i``'s variant, or
    :data:`NOT_ENROLLED` (-1) or :data:`HOLDOUT` (-2).
    """

    experiment: str
    variants: tuple[str, ...]
    units: pa.Array
    codes: np.ndarray

    def labels(self) -> pa.Array:
        """Variant name per unit; null where the unit is not in the experiment."""
        names = pa.array(list(self.variants), type=pa.string())
        idx = pa.array(self.codes.astype(np.int32), mask=self.codes < 0)
        return names.take(idx)

    def counts(self) -> dict[str, int]:
        """Units per variant, plus ``"(not enrolled)"`` and ``"(holdout)"``."""
        k = len(self.variants)
        c = np.bincount(self.codes + 2, minlength=k + 2)
        out = {v: int(c[i + 2]) for i, v in enumerate(self.variants)}
        out["(not enrolled)"] = int(c[1])
        out["(holdout)"] = int(c[0])
        return out

    def to_arrow(self) -> pa.Table:
        """Table with columns ``unit`` and ``variant`` (null when not enrolled)."""
        return pa.table({"unit": self.units, "variant": self.labels()})


class Assignments(Mapping[str, Assignment]):
    """Result of :meth:`Plan.assign`: ``{experiment name: Assignment}``."""

    def __init__(self, units: pa.Array, held_out: np.ndarray, items: dict[str, Assignment]) -> None:
        self.units = units
        self.held_out = held_out
        self._items = items

    def __getitem__(self, key: str) -> Assignment:
        try:
            return self._items[key]
        except KeyError:
            raise InputError(
                f"Assignments: no experiment named {key!r}; the plan has {list(self._items)}."
            ) from None

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: str, default: Any = None) -> Any:
        return self._items.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def to_arrow(self) -> pa.Table:
        """Columns ``unit``, ``holdout`` (bool) and one variant column per experiment."""
        cols: dict[str, Any] = {"unit": self.units, "holdout": pa.array(self.held_out)}
        for name, a in self._items.items():
            cols[name] = a.labels()
        return pa.table(cols)


@dataclass(frozen=True)
class Plan:
    """A set of experiments assigned together, with layers and a global holdout.

    Parameters
    ----------
    experiments
        The experiments; names and salts must be unique.
    holdout
        Fraction of all units held out of every experiment, in ``[0, 1)``
        (default 0: none).
    holdout_salt
        Salt of the holdout hash (default ``"holdout"``).
    buckets
        Number of hash buckets ``B`` (default 10,000); weights, traffic and offsets
        are rounded to multiples of ``1/B``.
    algorithm
        Hash algorithm, ``"fnv1a-fmix64"`` (default, vectorised) or ``"sha256"``.

    >>> plan = Plan([Experiment("a", ["control", "treatment"], layer="ranking", traffic=0.5),
    ...              Experiment("b", ["control", "treatment"], layer="ranking", traffic=0.5)])
    >>> res = plan.assign([f"user{i}" for i in range(1000)])
    >>> bool(((res["a"].codes >= 0) & (res["b"].codes >= 0)).any())  # exclusive
    False
    """

    experiments: Sequence[Experiment]
    holdout: float = 0.0
    holdout_salt: str = "holdout"
    buckets: int = 10_000
    algorithm: HashAlgorithm = DEFAULT_ALGORITHM

    def __post_init__(self) -> None:
        exps = tuple(self.experiments) if isinstance(self.experiments, Sequence) else None
        if not exps or not all(isinstance(e, Experiment) for e in exps):
            raise InputError("Plan: experiments must be a non-empty list of Experiment objects.")
        object.__setattr__(self, "experiments", exps)
        check_algorithm(self.algorithm, "Plan")
        _check_buckets(self.buckets, "Plan")
        check_salt(self.holdout_salt, "Plan holdout_salt")
        h = _check_fraction(self.holdout, "holdout", "Plan", low_open=False)
        if h >= 1:
            raise InputError(
                "Plan: holdout must be below 1 (a holdout of everyone leaves no experiment)."
            )
        object.__setattr__(self, "holdout", h)
        seen: dict[str, str] = {}
        names: set[str] = set()
        for e in exps:
            if e.name in names:
                raise InputError(
                    f"Plan: two experiments are named {e.name!r}; names must be unique."
                )
            names.add(e.name)
            if e.hash_salt in seen:
                raise InputError(
                    f"Plan: experiments {seen[e.hash_salt]!r} and {e.name!r} share the salt "
                    f"{e.hash_salt!r}, so their splits would be identical; give one a new salt."
                )
            seen[e.hash_salt] = e.name
        self._ranges()  # validates layers

    def _ranges(self) -> dict[str, tuple[str, int, int]]:
        """``{experiment: (layer, first bucket, end bucket)}`` with overlap checks."""
        out: dict[str, tuple[str, int, int]] = {}
        cursor: dict[str, float] = {}
        taken: dict[str, list[tuple[int, int, str]]] = {}
        for e in self.experiments:
            layer = e.layer_name
            start = e.offset if e.offset is not None else cursor.get(layer, 0.0)
            end = start + e.traffic
            if end > 1 + 1e-12:
                raise InputError(
                    f"Plan: layer {layer!r} is over-full: experiment {e.name!r} would occupy "
                    f"[{start:g}, {end:g}) of it. Lower the traffic of the experiments in the "
                    "layer or move one to another layer."
                )
            cursor[layer] = end
            lo, hi = _cut(start, self.buckets), min(_cut(end, self.buckets), self.buckets)
            if hi <= lo:
                raise InputError(
                    f"Plan: experiment {e.name!r} gets no bucket of {self.buckets} (traffic "
                    f"{e.traffic:g}); raise its traffic or use more buckets."
                )
            for a, b, other in taken.get(layer, []):
                if lo < b and a < hi:
                    raise InputError(
                        f"Plan: experiments {other!r} and {e.name!r} overlap in layer "
                        f"{layer!r}; give them disjoint offsets or different layers."
                    )
            taken.setdefault(layer, []).append((lo, hi, e.name))
            out[e.name] = (layer, lo, hi)
        return out

    def experiment(self, name: str) -> Experiment:
        """The experiment called ``name``."""
        for e in self.experiments:
            if e.name == name:
                return e
        raise InputError(
            f"Plan: no experiment named {name!r}; it has {[e.name for e in self.experiments]}."
        )

    def assign(self, units: Any) -> Assignments:
        """Assign every unit to a variant of every experiment (or to none).

        ``units`` is a list, numpy array, pandas/polars Series or pyarrow
        array of string or integer ids.  Duplicated ids simply get the same
        answer twice.
        """
        ids = as_ids(units, "Plan.assign: units")
        n = len(ids)
        B = self.buckets
        held = np.zeros(n, dtype=bool)
        if self.holdout > 0:
            held = _buckets(ids, self.holdout_salt, B, self.algorithm) < _cut(self.holdout, B)
        ranges = self._ranges()
        layer_buckets: dict[str, np.ndarray] = {}
        out: dict[str, Assignment] = {}
        for e in self.experiments:
            layer, lo, hi = ranges[e.name]
            bounds = e.boundaries(B)
            vb = _buckets(ids, e.hash_salt, B, self.algorithm)
            codes = (np.searchsorted(bounds, vb, side="right") - 1).astype(np.int32)
            if not (lo == 0 and hi == B):
                if layer not in layer_buckets:
                    layer_buckets[layer] = _buckets(ids, "layer/" + layer, B, self.algorithm)
                lb = layer_buckets[layer]
                codes[(lb < lo) | (lb >= hi)] = NOT_ENROLLED
            codes[held] = HOLDOUT
            codes.setflags(write=False)
            out[e.name] = Assignment(e.name, e.variant_names, ids, codes)
        held.setflags(write=False)
        return Assignments(ids, held, out)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description; :meth:`from_dict` reads it back."""
        d: dict[str, Any] = {"experiments": [e.to_dict() for e in self.experiments]}
        if self.holdout:
            d["holdout"] = self.holdout
        if self.holdout_salt != "holdout":
            d["holdout_salt"] = self.holdout_salt
        if self.buckets != 10_000:
            d["buckets"] = self.buckets
        if self.algorithm != DEFAULT_ALGORITHM:
            d["algorithm"] = self.algorithm
        return d

    @classmethod
    def from_dict(cls, data: Any, where: str = "plan") -> Plan:
        """Build a plan from ``{"experiments": [{"name": ..., "variants": {...}}, ...],
        "holdout": ..., "holdout_salt": ..., "buckets": ..., "algorithm": ...}``."""
        if not isinstance(data, Mapping):
            raise InputError(
                f"{where}: expected an object with an 'experiments' list, got "
                f"{type(data).__name__}."
            )
        allowed = {"experiments", "holdout", "holdout_salt", "buckets", "algorithm"}
        extra = sorted(set(data) - allowed)
        if extra:
            raise InputError(
                f"{where}: unknown key(s) {extra}; allowed keys are {sorted(allowed)}."
            )
        raw = data.get("experiments")
        if not isinstance(raw, list) or not raw:
            raise InputError(f"{where}: 'experiments' must be a non-empty list.")
        fields = {"name", "variants", "control", "salt", "traffic", "layer", "offset"}
        exps = []
        for i, item in enumerate(raw):
            if not isinstance(item, Mapping):
                raise InputError(f"{where}: experiments[{i}] must be an object.")
            bad = sorted(set(item) - fields)
            if bad:
                raise InputError(
                    f"{where}: experiments[{i}] has unknown key(s) {bad}; allowed "
                    f"keys are {sorted(fields)}."
                )
            if "name" not in item or "variants" not in item:
                raise InputError(f"{where}: experiments[{i}] needs 'name' and 'variants'.")
            exps.append(Experiment(**item))
        kwargs = {
            k: data[k] for k in ("holdout", "holdout_salt", "buckets", "algorithm") if k in data
        }
        return cls(exps, **kwargs)


def assign(
    units: Any,
    experiment: Experiment,
    *,
    holdout: float = 0.0,
    buckets: int = 10_000,
    algorithm: HashAlgorithm = DEFAULT_ALGORITHM,
) -> Assignment:
    """Assign ``units`` to the variants of one ``experiment``.

    Shorthand for ``Plan([experiment], holdout=..., buckets=...,
    algorithm=...).assign(units)[experiment.name]``.

    >>> a = assign(["u1", "u2", "u3"], Experiment("exp", {"control": 1, "treatment": 1}))
    >>> len(a.labels())
    3
    """
    plan = Plan([experiment], holdout=holdout, buckets=buckets, algorithm=algorithm)
    return plan.assign(units)[experiment.name]
