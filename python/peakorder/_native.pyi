# Types of the native extension (python/src/lib.rs). Call it through the `peakorder` package
# (peakorder/_api.py), which reads graphs and orders and issues the interruption warning.
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

__version__: str

def plan(
    graph_json: str,
    method: Optional[str] = None,
    budget_ms: Optional[float] = None,
    max_states: Optional[int] = None,
    max_memory_mb: Optional[int] = None,
    memory_limit_bytes: Optional[Union[int, str]] = None,
    recompute_method: Optional[str] = None,
) -> Tuple[Dict[str, Any], bool]: ...
def simulate(graph_json: str, order: List[str]) -> Dict[str, Any]: ...
def compare(
    graph_json: str,
    budget_ms: Optional[float] = None,
    max_states: Optional[int] = None,
    max_memory_mb: Optional[int] = None,
) -> Tuple[Dict[str, Any], bool]: ...
def fuse(
    graph_json: str,
    peak_limit: Optional[int] = None,
    budget_ms: Optional[float] = None,
    max_states: Optional[int] = None,
    with_graph: bool = False,
) -> Tuple[Dict[str, Any], Optional[str], bool]: ...
def report_html(
    graph_json: str,
    title: str,
    method: Optional[str] = None,
    budget_ms: Optional[float] = None,
) -> Tuple[str, bool]: ...
def layout(
    input: str,
    csv: bool,
    order: Optional[List[str]] = None,
    method: Optional[str] = None,
    plan_method: Optional[str] = None,
    align: Optional[int] = None,
    budget_ms: Optional[float] = None,
    max_states: Optional[int] = None,
    capacity: Optional[int] = None,
    slack: Optional[float] = None,
) -> Tuple[Dict[str, Any], bool]: ...
def validate(graph_json: str) -> Dict[str, Any]: ...
def dtype_sizes() -> Dict[str, int]: ...
def parse_bytes(text: str) -> int: ...
def json_dumps(obj: Any, default: Callable[[Any], Any]) -> str: ...
def import_onnx(model: bytes, assume_dims: Dict[str, int], name: Optional[str] = None,
                folder: Optional[str] = None) -> str: ...
def reorder_onnx(model: bytes, order: List[str]) -> bytes: ...
