"""backend(): a torch.compile backend that plans AOTAutograd's forward and backward graphs and
runs them through torch.fx (no Inductor): every op an ATen kernel, so the gradients are eager's
bits (with ``eager_batch_norm=True`` also within a byte limit on BatchNorm steps: efficientnet_b0
in docs/pytorch.md); for debugging and tests, and to see what order alone buys."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Optional, Union

from ._versions import require


def _boxed_codegen() -> Any:
    from torch.fx.graph import CodeGen

    class BoxedCodeGen(CodeGen):
        """``forward(self, args)`` takes the inputs as one list and clears it, so the graph's own
        frees of dead inputs (``x = None`` after a last use) really free them."""

        def gen_fn_def(self, free_vars: List[str], maybe_return_annotation: str, **kwargs: Any) -> str:
            names = [v.split(":")[0].split("=")[0].strip() for v in free_vars if v != "self"]
            lines = [f"def {getattr(self, '_func_name', 'forward')}(self, args){maybe_return_annotation}:"]
            if names:
                lines.append("    args_iter = iter(args)")
                lines += [f"    {n} = next(args_iter)" for n in names]
            lines.append("    args.clear()")
            return "\n".join(lines)

    return BoxedCodeGen()


def backend(*, memory_limit: Optional[Union[int, str]] = None, eager_batch_norm: bool = False,
            **plan_options: Any) -> Callable[..., Any]:
    """``torch.compile(fn, backend=peakorder.torch.backend(**plan_options))``: AOTAutograd
    traces forward and backward; each graph is reordered by :func:`peakorder.torch.reorder`
    (a backward graph's saved activations are freed at their last use) and runs as fx code with
    the boxed calling convention. Graphs peakorder cannot plan run unchanged, with a warning.

    ``memory_limit`` (bytes, text such as ``"64MiB"``, or ``"min"``): peakorder is also
    AOTAutograd's partitioner (``partition_fn``) and decides what the forward saves and the
    backward recomputes, as in :func:`inductor_options`.

    ``eager_batch_norm=True`` (torch >= 2.9): BatchNorm in training mode as in
    ``inductor_options(eager_batch_norm=True)``: its forward reads no buffer, so a limit may run
    it again in the backward (AOTAutograd's own op reads the running statistics the step
    writes, and is never recomputed), and its backward runs ATen's kernel by groups of channels.
    Every op stays an ATen kernel, so the gradients are eager's.

    The returned backend's ``records`` lists, per partitioned graph, what the partitioner
    planned (``plan``, ``recomputed``, ``recomputed_flops``), as the Inductor partitioner's."""
    require("backend")
    if eager_batch_norm:
        require("eager_batch_norm")
    from torch._dynamo.backends.common import aot_autograd

    from peakorder import PeakorderError

    from ._aot import freeable_placeholders
    from ._reorder import reorder

    def compile_graph(gm: Any, example_inputs: Any) -> Callable[..., Any]:
        try:
            reorder(gm, example_inputs, donate=freeable_placeholders(gm.graph), **plan_options)
        except PeakorderError as e:
            warnings.warn(f"peakorder: graph left in AOTAutograd's order: {e}", stacklevel=2)
        gm.graph.set_codegen(_boxed_codegen())
        gm.recompile()
        forward = gm.forward

        def run(args: List[Any]) -> Any:
            return forward(args)

        run._boxed_call = True  # type: ignore[attr-defined]
        return run

    records: List[Dict[str, Any]] = []
    if memory_limit is None:
        aot = aot_autograd(fw_compiler=compile_graph, bw_compiler=compile_graph)
    else:
        from ._partition import _parse_limit, partition

        limit = _parse_limit(memory_limit)

        def part(joint_module: Any, joint_inputs: Any, **kwargs: Any) -> Any:
            records.append({})
            return partition(joint_module, joint_inputs, memory_limit=limit, plan_options=plan_options,
                             record=records[-1], **kwargs)

        aot = aot_autograd(fw_compiler=compile_graph, bw_compiler=compile_graph, partition_fn=part)

    def compiler(gm: Any, example_inputs: Any) -> Any:
        if eager_batch_norm:
            from ._batch_norm import replace_batch_norm

            if replace_batch_norm(gm.graph):
                gm.recompile()
        return aot(gm, example_inputs)

    compiler.records = records  # type: ignore[attr-defined]
    return compiler
