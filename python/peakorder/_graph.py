"""Building peakorder graph JSON (docs/design.md §2) from framework exporters.

The builder keeps ids unique, declares every tensor before an op names it, and sizes tensors from
a shape and a dtype name. Dtypes outside docs/design.md's list are mapped explicitly to a byte size
(with the framework's name and the shape kept in ``meta``); anything without a fixed size is an
error naming the tensor.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ._api import dtype_bytes

FORMAT = "peakorder/1"

# Framework dtype names (numpy / JAX / PyTorch spellings) -> docs/design.md dtype.
DESIGN_DTYPES: Dict[str, str] = {
    "float64": "f64",
    "double": "f64",
    "float32": "f32",
    "float": "f32",
    "float16": "f16",
    "half": "f16",
    "bfloat16": "bf16",
    "float8_e4m3fn": "f8e4m3",
    "float8_e5m2": "f8e5m2",
    "int64": "i64",
    "long": "i64",
    "int32": "i32",
    "int": "i32",
    "int16": "i16",
    "short": "i16",
    "int8": "i8",
    "uint8": "u8",
    "bool": "bool",
}

# Fixed-size dtypes that docs/design.md does not name: bits per element. Sub-byte types are packed.
OTHER_DTYPE_BITS: Dict[str, int] = {
    "uint16": 16,
    "uint32": 32,
    "uint64": 64,
    "complex32": 32,
    "complex64": 64,
    "complex128": 128,
    "float8_e4m3fnuz": 8,
    "float8_e5m2fnuz": 8,
    "float8_e4m3b11fnuz": 8,
    "float8_e8m0fnu": 8,
    "float8_e3m4": 8,
    "float8_e4m3": 8,
    "float4_e2m1fn": 4,
    "float4_e2m1fn_x2": 8,
    "int4": 4,
    "uint4": 4,
    "int2": 2,
    "uint2": 2,
    "qint8": 8,
    "quint8": 8,
    "qint32": 32,
    "quint4x2": 8,
    # JAX's zero-size tangent type for integer inputs: never allocated.
    "float0": 0,
}


class ExportError(ValueError):
    """A model cannot be expressed as a peakorder graph; the message names the tensor or op."""


def dtype_name(dtype: Any) -> str:
    """'float32' for numpy/JAX dtypes, torch.float32, or plain strings."""
    s = str(dtype)
    return s[len("torch.") :] if s.startswith("torch.") else s


def size_fields(tid: str, shape: Sequence[int], dtype: Any) -> Dict[str, Any]:
    """The size part of a tensor entry: shape + dtype, or bytes (with meta) for other dtypes."""
    dims: List[int] = []
    for axis, d in enumerate(shape):
        try:
            v = int(d)
        except (TypeError, ValueError):
            raise ExportError(
                f"tensor {tid!r} has a symbolic or unknown dimension {d!r} (axis {axis}); "
                "export with concrete example inputs (static shapes)"
            ) from None
        if v < 0:
            raise ExportError(f"tensor {tid!r} has a negative dimension {v} (axis {axis})")
        dims.append(v)
    name = dtype_name(dtype)
    if name in DESIGN_DTYPES:
        return {"shape": dims, "dtype": DESIGN_DTYPES[name]}
    if name in OTHER_DTYPE_BITS:
        bits = OTHER_DTYPE_BITS[name]
        return {
            "bytes": (math.prod(dims) * bits + 7) // 8,
            "meta": {"shape": dims, "framework_dtype": name},
        }
    raise ExportError(
        f"tensor {tid!r} has dtype {name!r}, which peakorder cannot size "
        f"(known: {', '.join(sorted(set(DESIGN_DTYPES) | set(OTHER_DTYPE_BITS)))})"
    )


def size_bytes(fields: Dict[str, Any]) -> int:
    """Bytes of a tensor from its size fields (what :func:`size_fields` returns): ``bytes``, or
    the elements times the dtype's size, which comes from the core (core/src/dtype.rs)."""
    if "bytes" in fields:
        return int(fields["bytes"])
    return math.prod(fields["shape"]) * dtype_bytes(fields["dtype"])


class GraphBuilder:
    """Accumulates tensors and ops with unique ids, in program order."""

    def __init__(self) -> None:
        self.tensors: List[Dict[str, Any]] = []
        self.ops: List[Dict[str, Any]] = []
        self.outputs: List[str] = []
        self.meta: Dict[str, Any] = {}
        self._tensor_ids: set = set()
        self._op_ids: set = set()

    def fresh_tensor_id(self, want: str) -> str:
        return _fresh(want, self._tensor_ids)

    def fresh_op_id(self, want: str) -> str:
        return _fresh(want, self._op_ids)

    def tensor(
        self,
        want_id: str,
        shape: Optional[Sequence[int]] = None,
        dtype: Any = None,
        *,
        nbytes: Optional[int] = None,
        alias_of: Optional[str] = None,
        donated: bool = False,
        meta: Optional[Dict[str, Any]] = None,
    ) -> str:
        """Declares a tensor and returns its (unique) id."""
        tid = self.fresh_tensor_id(want_id)
        entry: Dict[str, Any] = {"id": tid}
        if alias_of is not None:
            entry["alias_of"] = alias_of
            if shape is not None and dtype is not None and dtype_name(dtype) in DESIGN_DTYPES:
                entry.update(size_fields(tid, shape, dtype))
            elif shape is not None:
                entry["meta"] = {"shape": [int(d) for d in shape]}
        elif nbytes is not None:
            entry["bytes"] = int(nbytes)
        else:
            entry.update(size_fields(tid, shape if shape is not None else (), dtype))
        if donated:
            entry["donated"] = True
        if meta:
            entry.setdefault("meta", {}).update(meta)
        self.tensors.append(entry)
        return tid

    def op(
        self,
        want_id: str,
        kind: str,
        inputs: Iterable[str],
        outputs: Iterable[str],
        *,
        attrs: Optional[Dict[str, Any]] = None,
        meta: Optional[Dict[str, Any]] = None,
        id_reserved: bool = False,
    ) -> str:
        """Adds an op; `id_reserved` when `want_id` came from fresh_op_id (to name outputs first)."""
        oid = want_id if id_reserved else self.fresh_op_id(want_id)
        entry: Dict[str, Any] = {
            "id": oid,
            "kind": kind,
            "inputs": list(inputs),
            "outputs": list(outputs),
        }
        if attrs:
            entry["attrs"] = attrs
        if meta:
            entry["meta"] = meta
        self.ops.append(entry)
        return oid

    def build(self) -> Dict[str, Any]:
        g: Dict[str, Any] = {
            "format": FORMAT,
            "tensors": self.tensors,
            "ops": self.ops,
            "outputs": self.outputs,
        }
        if self.meta:
            g["meta"] = self.meta
        return g


def _fresh(want: str, used: set) -> str:
    want = want or "t"
    if want not in used:
        used.add(want)
        return want
    k = 1
    while f"{want}#{k}" in used:
        k += 1
    out = f"{want}#{k}"
    used.add(out)
    return out


def json_safe(v: Any, depth: int = 0) -> Any:
    """Attribute values for the page: scalars, strings and short lists; the rest as text."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    if isinstance(v, (list, tuple)) and depth < 2 and len(v) <= 16:
        return [json_safe(x, depth + 1) for x in v]
    s = str(v)
    return s if len(s) <= 200 else s[:197] + "..."
