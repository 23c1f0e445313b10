"""What AOTAutograd's graphs own: which placeholders a compiled graph may free.

AOTAutograd names a forward graph's inputs ``primals_*`` (parameters and user inputs, held by
the caller) and an inference graph's ``arg*``; a backward graph gets the parameters it needs as
``primals_*``, the incoming gradients as ``tangents_*``, and the activations the forward saved
under their own names. The backward runs with ``steal_args`` after clearing its context's saved
tensors, so those activations die at their last use inside it. Inductor's own memory estimate
reads the same names (``torch._inductor.utils.is_nonfreeable_buffers``)."""

from __future__ import annotations

from typing import Any, List

_HELD = ("primals_", "arg", "fwd_rng_state", "bwd_rng_state", "tangents")


def freeable_placeholders(fx_graph: Any) -> List[str]:
    """Names of the placeholders of an AOTAutograd graph that it may free after their last use."""
    return [n.name for n in fx_graph.nodes if n.op == "placeholder" and not n.name.startswith(_HELD)]
