"""Exporters: a framework's program as a peakorder graph (a dict in docs/design.md §2's JSON format).

- :func:`from_jaxpr` — JAX (``jax.make_jaxpr``), calls and ``jax.checkpoint`` inlined.
- :func:`from_fx` — PyTorch ``torch.fx.GraphModule`` (symbolic_trace, torch.export,
  AOTAutograd joint graphs), views and in-place ops as ``alias_of``.
"""

from ._fx import from_fx
from ._jax import from_jaxpr

__all__ = ["from_jaxpr", "from_fx"]
