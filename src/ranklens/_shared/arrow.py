"""Moving numeric columns between NumPy and Arrow without pyarrow's pandas shim.

``pa.array(ndarray)``, ``Array.to_numpy()`` and ``np.asarray(arrow_array)``
make pyarrow import pandas when it is installed (0.2-0.4 s), which a command
line run on a small file should not pay.  These helpers go through the
buffers directly for the primitive types ranklens uses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

__all__ = ["from_numpy", "to_numpy"]

_TO_ARROW: dict[np.dtype[Any], pa.DataType] = {
    np.dtype(np.int8): pa.int8(),
    np.dtype(np.int16): pa.int16(),
    np.dtype(np.int32): pa.int32(),
    np.dtype(np.int64): pa.int64(),
    np.dtype(np.uint8): pa.uint8(),
    np.dtype(np.uint16): pa.uint16(),
    np.dtype(np.uint32): pa.uint32(),
    np.dtype(np.uint64): pa.uint64(),
    np.dtype(np.float32): pa.float32(),
    np.dtype(np.float64): pa.float64(),
}
_TO_NUMPY: dict[str, np.dtype[Any]] = {str(v): k for k, v in _TO_ARROW.items()}


def from_numpy(values: np.ndarray) -> pa.Array:
    """A 1-d numeric or boolean NumPy array as an Arrow array (no nulls)."""
    a = np.ascontiguousarray(values)
    if a.dtype == np.bool_:
        bits = np.packbits(a, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(a), [None, pa.py_buffer(bits)])
    typ = _TO_ARROW.get(a.dtype)
    if typ is None:
        return pa.array(a)  # other types: let pyarrow handle them
    return pa.Array.from_buffers(typ, len(a), [None, pa.py_buffer(a)])


def _validity(arr: pa.Array) -> np.ndarray:
    buf = arr.buffers()[0]
    n = len(arr)
    if buf is None:
        return np.ones(n, dtype=bool)
    bits = np.unpackbits(
        np.frombuffer(buf, dtype=np.uint8), bitorder="little", count=arr.offset + n
    )
    return bits[arr.offset :].astype(bool)


def to_numpy(arr: Any, fill: int | float | None = None) -> np.ndarray:
    """An Arrow numeric or boolean array as a NumPy array; nulls become ``fill``
    (which must then be given)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    n = len(arr)
    if arr.null_count and fill is not None and str(arr.type) in _TO_NUMPY:
        dt = _TO_NUMPY[str(arr.type)]
        buf = arr.buffers()[1]
        values = np.frombuffer(buf, dtype=dt, count=n, offset=arr.offset * dt.itemsize)
        return np.where(_validity(arr), values, np.asarray(fill, dtype=dt))
    if arr.null_count and fill is not None and pa.types.is_boolean(arr.type):
        bits = np.unpackbits(
            np.frombuffer(arr.buffers()[1], dtype=np.uint8), bitorder="little", count=arr.offset + n
        )[arr.offset :].astype(bool)
        return np.where(_validity(arr), bits, bool(fill))
    if arr.null_count == 0:
        if pa.types.is_boolean(arr.type):
            buf = arr.buffers()[1]
            if buf is None or n == 0:
                return np.zeros(n, dtype=bool)
            bits = np.unpackbits(
                np.frombuffer(buf, dtype=np.uint8), bitorder="little", count=arr.offset + n
            )
            return bits[arr.offset :].astype(bool)
        found = _TO_NUMPY.get(str(arr.type))
        if found is not None:
            buf = arr.buffers()[1]
            if buf is None or n == 0:
                return np.zeros(n, dtype=found)
            return np.frombuffer(buf, dtype=found, count=n, offset=arr.offset * found.itemsize)
    return np.asarray(arr.to_numpy(zero_copy_only=False))


def scalar(value: int | float | bool | str) -> pa.Scalar:
    """An Arrow scalar built from buffers (``pa.scalar`` would import pandas)."""
    if isinstance(value, str):
        data = value.encode("utf-8")
        offsets = np.array([0, len(data)], dtype=np.int32)
        arr = pa.Array.from_buffers(
            pa.string(), 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        )
        return arr[0]
    if isinstance(value, bool):
        return from_numpy(np.array([value]))[0]
    dtype = np.int64 if isinstance(value, int) else np.float64
    return from_numpy(np.array([value], dtype=dtype))[0]


def strings(values: list[str]) -> pa.Array:
    """Python strings as an Arrow large_string array (built from buffers)."""
    encoded = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    return pa.Array.from_buffers(
        pa.large_string(),
        len(encoded),
        [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))],
    )
