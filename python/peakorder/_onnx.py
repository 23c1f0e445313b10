"""ONNX models in and out (issue #31): :func:`import_onnx` gives the graph ``peakorder import
onnx`` writes, byte for byte, and :func:`reorder_onnx` writes a plan's order into the model with
every other byte unchanged (``peakorder export onnx``). Both run the native extension's
``peakorder-onnx`` crate, the CLI's and the npm package's importer; errors are
:class:`peakorder.PeakorderError` with the codes of docs/import.md."""

from __future__ import annotations

import json
import numbers
import os
from collections.abc import Mapping
from typing import Any, Dict, Optional, Tuple, Union

from . import _native
from ._api import OrderLike, _order_ids
from ._errors import _make

#: A model: its bytes, the path of an ``.onnx`` file, or an ``onnx.ModelProto``.
ModelLike = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", Any]


def _model_bytes(model: ModelLike) -> Tuple[bytes, Optional[str], Optional[str]]:
    """(bytes, file name, folder) of a model argument; name and folder only for a path."""
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), None, None
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise _make("invalid_argument", f"cannot read {path}: {e}") from None
        return data, os.path.basename(path), os.path.dirname(path) or "."
    serialize = getattr(model, "SerializeToString", None)
    if callable(serialize):
        return serialize(), None, None
    raise _make(
        "invalid_argument",
        f"the model must be bytes, a path or an onnx.ModelProto, got {type(model).__name__}",
    )


def _assume(assume_dims: Optional[Mapping]) -> Dict[str, int]:
    if assume_dims is None:
        return {}
    if not isinstance(assume_dims, Mapping):
        raise _make("invalid_argument", "assume_dims must be a dict of dimension name -> int")
    out = {}
    for k, v in assume_dims.items():
        if not isinstance(k, str) or not k:
            raise _make("invalid_argument", f"assume_dims: {k!r} is not a dimension name")
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= int(v) < 2**63:
            raise _make("invalid_argument", f"assume_dims[{k!r}] must be an int from 0 to 2^63-1, got {v!r}")
        out[k] = int(v)
    return out


def import_onnx(model: ModelLike, assume_dims: Optional[Mapping] = None, *, as_text: bool = False,
                name: Optional[str] = None) -> Union[Dict[str, Any], str]:
    """The graph of an ONNX model (a dict; its JSON text with ``as_text=True``, the bytes
    ``peakorder import onnx MODEL`` writes less its final newline).

    ``assume_dims`` gives symbolic dimensions values (the CLI's ``--assume-dim``). Given a path,
    ``meta.model`` is the file's name (as the CLI writes it; ``name`` overrides it) and small
    initializers in external data files are read from the model's folder; given bytes, no file
    is read and such a model fails with code ``external_data``."""
    data, file_name, folder = _model_bytes(model)
    text = _native.import_onnx(data, _assume(assume_dims), name if name is not None else file_name, folder)
    return text if as_text else json.loads(text)


def reorder_onnx(model: ModelLike, order: OrderLike, output: Optional[Union[str, "os.PathLike[str]"]] = None) -> bytes:
    """The model's bytes with ``graph.node`` in ``order`` (op ids, a plan, JSON text or a path of
    either) and every other byte as it was; written to ``output`` too when given. The order must
    name each node once, after the producers of its inputs (codes ``unknown_op``,
    ``repeated_op``, ``missing_op``, ``not_topological``, naming the node)."""
    data, _, _ = _model_bytes(model)
    out = _native.reorder_onnx(data, _order_ids(order))
    if output is not None:
        with open(output, "wb") as f:
            f.write(out)
    return out
