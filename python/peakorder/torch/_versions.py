"""Which torch each entry point needs (docs/pytorch.md, "Supported versions")."""

from __future__ import annotations

from typing import Tuple

from ._api import error

#: entry point -> (oldest torch it runs on, why)
NEEDS = {
    "reorder": ((2, 6), "torch.fx node moves and fake-tensor metadata as peakorder reads them"),
    "measure_peak": ((2, 6), "the profiler's memory events (kineto_results.events)"),
    "backend": ((2, 6), "AOTAutograd's aot_autograd(fw_compiler=, bw_compiler=)"),
    "inductor_options": ((2, 6), "Inductor's post_grad_custom_post_pass (a CustomGraphPass)"),
    "scheduler": ((2, 8), "Inductor's _post_fusion_custom_pass"),
    "memory_limit": ((2, 9), "Inductor's custom_partitioner_fn (a CustomPartitionerFn)"),
    # Checked on 2.9.1 and 2.15 (python/tests/test_torch_batch_norm.py), as memory_limit is.
    "eager_batch_norm": ((2, 9), "Inductor's pre_grad_custom_pass as a CustomGraphPass, and custom ops"),
}


def torch_version() -> Tuple[int, int]:
    import torch

    parts = torch.__version__.split("+")[0].split(".")
    return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)


def require(entry: str) -> None:
    """Raises PeakorderError(code="unsupported_torch") when the installed torch is too old."""
    import torch

    oldest, why = NEEDS[entry]
    if torch_version() < oldest:
        raise error(
            "unsupported_torch",
            f"peakorder.torch.{entry} needs torch >= {oldest[0]}.{oldest[1]} ({why}); "
            f"this is torch {torch.__version__}",
        )
