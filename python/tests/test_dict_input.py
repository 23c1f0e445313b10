"""A graph given as a dict: the extension writes it as JSON text itself (python/src/dumps.rs)
instead of `json.dumps`, and must write exactly what json.dumps wrote (so the core's one parser
gives the same result and the same errors, positions included) or raise exactly what it raised.

Each value is checked against the reference call that peakorder/_api.py made before, on this very
interpreter; then whole graphs go through peakorder.plan both ways and must give the same plan or
the same error message."""

import collections
import enum
import json
import math
import random
import sys
import types

import numpy as np
import pytest

import peakorder
from peakorder import _native
from peakorder._api import _json_default
from conftest import CASES

INVALID = CASES / "invalid"


def reference(obj):
    """What _api.py did with a dict before the extension wrote it itself."""
    return json.dumps(obj, allow_nan=False, separators=(",", ":"), default=_json_default,
                      check_circular=False)


def native(obj):
    return _native.json_dumps(obj, _json_default)


def outcome(f, obj):
    try:
        return "ok", f(obj)
    except Exception as e:  # noqa: BLE001 - the exception's type and text are compared
        return type(e).__name__, str(e)


def assert_same(obj):
    want = outcome(reference, obj)
    got = outcome(native, obj)
    assert got == want, f"{obj!r}"
    return got


# --- values -------------------------------------------------------------------------------------


class Str(str):
    pass


class Int(int):
    def __repr__(self):  # json ignores both (it uses int.__repr__)
        return "not this"

    __str__ = __repr__


class Float(float):
    def __repr__(self):
        return "not this"


class Color(enum.IntEnum):
    RED = 1


class Index:
    """What numpy and torch integers offer: __index__."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v

    def __repr__(self):
        return f"Index({self.v!r})"


class BadIndex:
    def __index__(self):
        raise ZeroDivisionError("no value")


class OtherList(list):
    def __iter__(self):  # json reads a list subclass through its iterator
        return iter(["from __iter__"])


class NotIterable(list):
    def __iter__(self):
        raise TypeError("nope")


class OtherDict(dict):
    def items(self):  # json reads a dict subclass through items()
        return [("from items", 1)]


class BadItems(dict):
    def items(self):
        return [("a", 1, 2)]


Point = collections.namedtuple("Point", "x y")

STRINGS = ["", "a", "id", "x:0", "\"quoted\"", "back\\slash", "tab\there", "nl\nnl", "\r\b\f",
           "".join(map(chr, range(128))), "\x7f", "é", "naïve", "日本語", "😀", "a😀b", "\u2028",
           "\ud800", "\udfff", "a\ud83d", "\ud83d\ude00", "\U0010ffff", "\x00", Str("sub"),
           Str("é😀"), np.str_("numpy str"), "x" * 1000]
INTS = [0, 1, -1, 7, 2**31, 2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**64 - 1, 2**64, 2**64 + 1,
        10**30, -10**30, 10**300, Int(5), Int(2**70), Color.RED, True, False]
FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 1e16, 1e15, 123456789012345678.0, 1e-4, 1e-5, 1.5e300,
          5e-324, 2.0**0.5, 1.5e400, -1.5e400, math.nan, -math.nan, Float(2.5), Float(math.nan),
          np.float64(1.25), np.float64(math.inf)]
OTHERS = [None, Index(4), Index(2**64), Index(-3), np.int64(42), np.int32(-7), np.uint64(2**64 - 1),
          np.uint8(255), np.bool_(True), np.float32(1.5), object(), {1, 2}, b"bytes", BadIndex(),
          Index("not an int"), types.MappingProxyType({"a": 1}), 1j, Point(1, 2), (), [], {},
          OtherList(["x"]), NotIterable(), OtherDict(a=1), OtherDict(), BadItems(a=1),
          collections.OrderedDict(b=1, a=2), collections.defaultdict(list, k=[1]),
          collections.Counter("aab"), (1, [2, (3,)]), [[[]]], {"a": {"b": {}}}]
KEYS = ["k", "é", "😀", "\ud800", Str("s"), 1, -1, 2**64, 2**100, Int(3), 1.5, -0.0, 1e16,
        math.nan, math.inf, True, False, None, (1, 2), np.int64(1), np.float64(2.5), Color.RED,
        frozenset(), b"b"]


@pytest.mark.parametrize("v", STRINGS + INTS + FLOATS + OTHERS, ids=repr)
def test_every_kind_of_value_is_written_as_json_dumps_writes_it(v):
    assert_same(v)
    assert_same([v, v])
    assert_same({"v": v, "w": [v]})


@pytest.mark.parametrize("k", KEYS, ids=repr)
def test_every_kind_of_key_is_written_as_json_dumps_writes_it(k):
    assert_same({k: 1})
    assert_same({"a": 0, k: [k] if not isinstance(k, float) or math.isfinite(k) else 0, "z": 1})


def test_bool_is_not_int_and_int_keys_are_strings():
    assert native([True, 1, False, 0]) == "[true,1,false,0]"
    assert native({True: 1, 2: True, None: False}) == '{"true":1,"2":true,"null":false}'
    # {1: ..., "1": ...} makes a duplicate key in the text, as json.dumps does.
    assert native({1: "a", "1": "b"}) == reference({1: "a", "1": "b"}) == '{"1":"a","1":"b"}'


def test_non_ascii_is_escaped_as_utf16_like_json_dumps():
    assert native(["é", "😀", "\ud800", "\x1f\x7f"]) == r'["\u00e9","\ud83d\ude00","\ud800","\u001f\u007f"]'


def test_refusals_raise_the_same_exception():
    assert outcome(native, {"x": math.nan}) == outcome(reference, {"x": math.nan})
    assert outcome(native, {"x": math.nan})[0] == "ValueError"
    assert outcome(native, {(1,): 1})[0] == "TypeError"
    assert "keys must be str, int, float, bool or None" in outcome(native, {(1,): 1})[1]
    assert outcome(native, [object()])[1].startswith("object <object object at")
    assert outcome(native, [10**5000]) == outcome(reference, [10**5000])  # int digits limit
    assert outcome(native, [BadIndex()]) == ("ZeroDivisionError", "no value")


def random_value(rng, depth=0):
    pick = rng.random()
    if depth >= 4 or pick < 0.45:
        return rng.choice(STRINGS + INTS + FLOATS + OTHERS[:14])
    if pick < 0.6:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if pick < 0.7:
        return tuple(random_value(rng, depth + 1) for _ in range(rng.randrange(4)))
    if pick < 0.95:
        d = {}
        for _ in range(rng.randrange(5)):
            d[rng.choice(KEYS[:13] + STRINGS[:10]) if rng.random() < 0.9 else rng.choice(KEYS)] = \
                random_value(rng, depth + 1)
        return d
    return rng.choice([OtherList, list, tuple])([random_value(rng, depth + 1)])


def test_random_nested_values_are_written_as_json_dumps_writes_them():
    rng = random.Random(15)
    kinds = collections.Counter()
    for _ in range(5000):
        v = random_value(rng)
        kinds[assert_same(v)[0]] += 1
    # Both outcomes are common, so both are checked.
    assert kinds["ok"] > 1000 and kinds["ValueError"] + kinds["TypeError"] > 1000, kinds


# --- nesting ------------------------------------------------------------------------------------


def nested(depth, make=lambda x: [x]):
    v = 0
    for _ in range(depth):
        v = make(v)
    return v


def test_deep_nesting_fails_where_json_dumps_fails():
    limit = sys.getrecursionlimit()
    for depth in (10, 200, limit // 2):
        for make in (lambda x: [x], lambda x: {"k": x}, lambda x: (x,), lambda x: OtherDict(k=x)):
            assert assert_same(nested(depth, make))[0] == "ok"
    # Past Python's recursion limit (up to 3.11 json.dumps's limit; from 3.12 on the C limit of
    # the interpreter, which may lie above), and far past every limit.
    for depth in (limit + 10, 5 * limit, 20 * limit):
        for make in (lambda x: [x], lambda x: {"k": x}):
            got = assert_same(nested(depth, make))
            # Whatever the version both sides give the same outcome (assert_same); up to 3.11
            # that level is Python's limit, so these must fail there.
            if sys.version_info < (3, 12):
                assert got[0] == "RecursionError"
    assert assert_same(nested(200_000))[0] == "RecursionError"


def test_the_walk_does_not_grow_the_native_stack():
    # With Python's limit raised far above, nesting that would overflow the native stack of a
    # recursive encoder is written, and the walk's own limit (100,000 levels) still holds.
    old = sys.getrecursionlimit()
    deep, deeper = nested(50_000), nested(150_000)
    sys.setrecursionlimit(1_000_000)
    try:
        assert native(deep) == "[" * 50_000 + "0" + "]" * 50_000
        assert outcome(native, deeper)[0] == "RecursionError"
    finally:
        sys.setrecursionlimit(old)


def test_a_dict_that_holds_itself_is_a_recursion_error_and_the_depth_is_given_back():
    d = {"ops": []}
    d["ops"].append(d)
    for _ in range(200):
        assert outcome(native, d)[0] == "RecursionError"
        assert outcome(native, [[[BadIndex()]]])[0] == "ZeroDivisionError"

    # Every level the walk counted was given back: Python can still recurse as deep as before.
    def down(n):
        return 0 if n == 0 else 1 + down(n - 1)

    assert down(sys.getrecursionlimit() - 50) == sys.getrecursionlimit() - 50
    assert assert_same(nested(sys.getrecursionlimit() // 2))[0] == "ok"


def test_default_results_are_written_in_place_and_default_may_return_anything():
    def default(o):
        return {"wrapped": [o.v, Index(o.v + 1)]} if o.v < 3 else "done"

    assert _native.json_dumps([Index(1), {"x": Index(5)}], default) == \
        json.dumps([Index(1), {"x": Index(5)}], default=default, allow_nan=False, separators=(",", ":"))


# --- whole graphs through plan ------------------------------------------------------------------


def old_plan(graph, **kw):
    """peakorder.plan as it was: json.dumps first, its errors mapped as _api.py maps them."""
    try:
        text = reference(graph)
    except RecursionError:
        return "GraphError", "bad_json: the graph cannot be converted to JSON: it is nested too deeply or contains itself"
    except (TypeError, ValueError) as e:
        return "GraphError", f"bad_json: the graph cannot be converted to JSON: {e}"
    return plan_outcome(text, **kw)


def plan_outcome(graph, **kw):
    try:
        p = peakorder.plan(graph, "greedy", **kw)
        p.pop("elapsed_ms")
        return "ok", p
    except peakorder.PeakorderError as e:
        return type(e).__name__, f"{e.code}: {e}"


def graph(**changes):
    g = {"format": "peakorder/1",
         "tensors": [{"id": "x", "shape": [4, 4], "dtype": "f32"}, {"id": "w", "bytes": 64},
                     {"id": "y", "bytes": 32}, {"id": "z", "bytes": 16}],
         "ops": [{"id": "a", "inputs": ["x", "w"], "outputs": ["y"]},
                 {"id": "b", "inputs": ["y"], "outputs": ["z"], "workspace": 8}],
         "outputs": ["z"]}
    for path, v in changes.items():
        *where, last = path.split("__")
        at = g
        for p in where:
            at = at[int(p)] if isinstance(at, list) else at[p]
        at[int(last) if isinstance(at, list) else last] = v
    return g


GRAPHS = [
    graph(),
    graph(tensors__1__bytes=2**64), graph(tensors__1__bytes=2**64 - 1), graph(tensors__1__bytes=-1),
    graph(tensors__1__bytes=10**40), graph(tensors__1__bytes=1.5), graph(tensors__1__bytes=64.0),
    graph(tensors__1__bytes=math.nan), graph(tensors__1__bytes=math.inf), graph(tensors__1__bytes=True),
    graph(tensors__1__bytes=np.int64(64)), graph(tensors__1__bytes=np.float32(64)),
    graph(tensors__1__bytes=Index(64)), graph(tensors__1__bytes=Index(-64)), graph(tensors__1__bytes=None),
    graph(tensors__1__bytes="64"), graph(tensors__1__bytes=[64]), graph(tensors__1__bytes=object()),
    graph(tensors__0__shape=(np.int64(4), np.int32(4))), graph(tensors__0__shape=[2**63, 2**63]),
    graph(tensors__0__id="é😀", ops__0__inputs=["é😀", "w"]), graph(tensors__0__id="\ud800"),
    graph(tensors__0__id=Str("x")), graph(tensors__0__id=1), graph(ops__0__id="日本", ops__1__id="日本"),
    graph(ops__0__inputs=["x", "nope\n"]), graph(ops__1__workspace=2**64), graph(ops__1__kind=None),
    graph(ops__0__meta={"scope": "jvp()", 1: [1.5, None, True], "deep": nested(100)}),
    graph(ops__0__attrs={"eps": 1e-5, "axes": (2,), "big": 10**30}), graph(ops__0__attrs={2.5: 1}),
    graph(ops__0__attrs={(1,): 1}), graph(ops__0__attrs={math.nan: 1}), graph(ops__0__typo=1),
    graph(outputs=["z", 1]), graph(outputs=("z",)), graph(outputs=OtherList(["z"])),
    graph(format="peakorder/2"), graph(tensors={"x": 1}), graph(ops=collections.OrderedDict()),
    collections.OrderedDict(graph()), OtherDict(graph()), types.MappingProxyType(graph()),
]


@pytest.mark.parametrize("i", range(len(GRAPHS)))
def test_a_dict_graph_gives_the_plan_or_error_it_gave_through_json_dumps(i):
    want = old_plan(GRAPHS[i])
    got = plan_outcome(GRAPHS[i])
    assert got == want


def test_the_invalid_corpus_as_dicts_gives_the_errors_of_json_dumps_text():
    checked = 0
    for f in sorted(INVALID.glob("*.json")):
        try:
            g = json.loads(f.read_text())
        except (ValueError, RecursionError):
            continue
        if isinstance(g, dict):
            costs = [op.get("cost") for op in g.get("ops", []) if isinstance(op, dict)]
            if any(isinstance(c, float) and not math.isfinite(c) for c in costs):
                # json.dumps cannot write it; the dict path names the op and the value (#29).
                kind, message = plan_outcome(g)[:2]
                assert message.startswith('invalid_op: op "mm": `cost` must be'), f.name
                checked += 1
                continue
            assert plan_outcome(g) == old_plan(g), f.name
            checked += 1
    assert checked >= 20


def test_a_big_exported_graph_is_written_byte_for_byte():
    # Realistic shapes, shared id strings (as exporters make them), numpy shape entries.
    rng = random.Random(3)
    ids = [f"t{i}" for i in range(3000)]
    tensors = [{"id": t, "shape": [np.int64(rng.randrange(1, 64)), rng.randrange(1, 64)], "dtype": "f32"}
               for t in ids]
    ops = [{"id": f"op{i}", "kind": "add", "inputs": [ids[i - 1]] if i else [], "outputs": [ids[i]],
            "attrs": {"alpha": rng.random(), "axes": (i % 3,)}, "meta": {"scope": f"layer{i % 7}"}}
           for i in range(len(ids))]
    g = {"format": "peakorder/1", "tensors": tensors, "ops": ops, "outputs": [ids[-1]]}
    assert native(g) == reference(g)
    assert plan_outcome(g) == old_plan(g)
