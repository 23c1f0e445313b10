"""peakorder for PyTorch: apply a plan inside torch.fx and torch.compile, and measure it with
PyTorch's own allocator (docs/pytorch.md).

    import peakorder.torch as pt
    plan = pt.reorder(gm)                                  # a torch.fx GraphModule, in place
    fn = torch.compile(f, options=pt.inductor_options())   # Inductor, post-grad pass
    fn = torch.compile(f, backend=pt.backend())            # AOTAutograd + fx, for debugging
    pt.measure_peak(fn, *args)                             # bytes above what was live before

torch is imported by these functions, not by ``import peakorder``."""

from ._backend import backend
from ._calibrate import calibrate
from ._inductor import inductor_options
from ._measure import measure_peak, peak_of_events
from ._reorder import reorder, reorder_graph
from ._versions import NEEDS as REQUIREMENTS

__all__ = [
    "reorder",
    "reorder_graph",
    "inductor_options",
    "backend",
    "measure_peak",
    "peak_of_events",
    "calibrate",
    "REQUIREMENTS",
]
