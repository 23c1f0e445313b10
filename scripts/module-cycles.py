#!/usr/bin/env python3
"""Finds import circles among the modules of the project's Rust crates and of its Python package
(the rule: no module imports one that imports it back, directly or through others).

Usage: scripts/module-cycles.py [-v] [TREE...]   (-v lists every module's imports). A TREE is a
Rust source folder (each of its crate roots, `lib.rs` and `main.rs`, is a crate of its own) or a
Python package (a folder with `__init__.py`). Without TREE: every tree of the project, DEFAULT
below. Exit status 1 when a circle exists, 2 when a tree cannot be read.

Rust: a crate's modules are its root's `mod x;` declarations, followed file by file (`x.rs` or
`x/mod.rs`), and inline `mod x { ... }` blocks (test modules). Every path a module's code names
(`use` lines, their `{...}` groups, and paths in expressions and types: `crate::a::b`,
`super::x`, `self::x`, or a child module's name) is resolved to the longest module prefix it
names; that module is an edge. Comments are ignored. Declaring a child (`mod x;`) is not an edge,
and the crate root is a facade: a name it re-exports (`pub use a::X`) resolves to where it comes
from, and its own items (type aliases) depend on nothing. Paths into other crates are not edges.

Python: every `import` and `from ... import` anywhere in a module (at its top, in a function, under
`if TYPE_CHECKING`), relative or absolute, that names the package is an edge to the module it
names: `from .m import x` to `m`, or to `m.x` where that is a submodule; a name imported from a
package (`from peakorder import PeakorderError`, `from . import _api`) resolves through what the
package's `__init__.py` imports to where it comes from, and to the package itself only where its
`__init__.py` defines it. `import peakorder` followed by `peakorder.a.b` resolves the same way.
Running a module's parent packages (Python runs `__init__.py` first) is not an edge, as declaring
a child is not in Rust; names that are neither a module nor bound by the package (a native
extension, `_native`) are outside the package.

Strongly connected components of more than one module (Tarjan's algorithm) are the circles.
"""
import ast
import os
import re
import sys

DEFAULT = [
    "core/src",
    "onnx/src",
    "native-gpu/src",
    "wasm/src",
    "report/src",
    "python/src",
    "python/peakorder",
]
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


class Unreadable(Exception):
    pass


# --- Rust ---------------------------------------------------------------------------------------


# Rust's comments and literals, in one pass so that each starts where the one before it ended
# (a `"` in a comment or in a char literal, `'"'`, starts no string): line and block comments,
# raw strings (`r#"..."#`, `br"..."`), strings (`"..."`, `b"..."`), chars (`'{'`, `'\\''`,
# `'\\u{7b}'`; a lifetime `'a` is none).
LEXEME = re.compile(
    r"//[^\n]*"
    r"|/\*.*?\*/"
    r'|(?<![A-Za-z0-9_])b?r(#*)".*?"\1'
    r'|b?"(?:\\.|[^"\\])*"'
    r"|'(?:\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^'\\\n])'",
    re.S,
)


def strip(text):
    """Comments out, string and char literals emptied (they may hold `::`, `mod x {`, braces)."""
    return LEXEME.sub(lambda m: {"/": " ", "'": "' '"}.get(m.group(0)[0], '""'), text)


def expand_use(tree):
    """`a::{b, c::{d as e, self}}` -> ['a::b', 'a::c::d as e', 'a::c::self']."""
    tree = tree.strip()
    m = re.match(r"^(.*?)\{(.*)\}$", tree, flags=re.S)
    if not m:
        return [re.sub(r"\s+", " ", tree)]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if p.strip():
            out += [prefix + x for x in expand_use(p)]
    return out


def use_binding(item):
    """'a::b as c' -> ('a::b', 'c'); 'a::b::self' -> ('a::b', 'b'); 'a::*' -> ('a::*', None)."""
    path, _, alias = item.partition(" as ")
    path = path.replace(" ", "")
    if path.endswith("::self"):
        path = path[: -len("::self")]
    name = alias.strip() or path.split("::")[-1]
    return path, None if name in ("*", "_") else name


def inline_modules(here, text):
    """Splits out inline `mod name { ... }` blocks (test modules): [(module, text)], outermost
    last, each without its nested blocks."""
    out = []
    while True:
        m = re.search(rf"\bmod\s+({IDENT})\s*\{{", text)
        if not m:
            return out + [(here, text)]
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out += inline_modules(here + (m.group(1),), text[m.end() : i - 1])
        text = text[: m.start()] + text[i:]


def rust_files(root):
    """The crate rooted at file `root`: {module: (path, stripped text)}, following `mod x;`."""
    files = {}

    def visit(module, path, child_dir):
        text = strip(open(path, encoding="utf-8").read())
        files[module] = (path, text)
        for m in re.finditer(rf"(#\[path\b[^\]]*\]\s*)?(?:pub(?:\([^)]*\))?\s+)?\bmod\s+({IDENT})\s*;", text):
            if m.group(1):
                raise Unreadable(f"{path}: #[path] modules are not followed")
            name = m.group(2)
            for cand, sub in (
                (os.path.join(child_dir, name + ".rs"), os.path.join(child_dir, name)),
                (os.path.join(child_dir, name, "mod.rs"), os.path.join(child_dir, name)),
            ):
                if os.path.isfile(cand):
                    visit(module + (name,), cand, sub)
                    break
            else:
                raise Unreadable(f"{path}: `mod {name};` has no file in {child_dir}")

    visit((), root, os.path.dirname(root))
    return files


def rust_crate(root):
    """(modules, edges) of the crate rooted at file `root`."""
    files = rust_files(root)
    modules = set(files)
    sources = []  # (module, its own text: without its inline modules' blocks)
    for here, (_, text) in files.items():
        sources += inline_modules(here, text)
    for here, _ in sources:
        modules.add(here)
    # What each module's `use` lines bind: name -> (module, path), e.g. in `cli`,
    # `pub use clock::StdClock;` binds StdClock -> (cli, 'clock::StdClock').
    bindings = {m: {} for m in modules}
    for here, text in sources:
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            for item in expand_use(m.group(1)):
                path, name = use_binding(item)
                if name:
                    bindings[here][name] = (here, path)

    def resolve(here, path, seen=frozenset()):
        """The module a path names from module `here` (None if outside the crate). A name that a
        `use` binds (a re-export, `pub use a::X`, or an import that a child names as `super::X`)
        resolves to where it comes from."""
        segs = [s for s in path.replace(" ", "").split("::") if s]
        if not segs:
            return None
        if segs[0] == "crate":
            base, segs = (), segs[1:]
        elif segs[0] in ("self", "super"):
            base = here
            while segs and segs[0] in ("self", "super"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
        elif here + (segs[0],) in modules:
            base = here  # a child module named by its name
        elif segs[0] in bindings[here] and (here, segs[0]) not in seen:
            # A name this module's `use` binds (`use crate::order;` ... `order::x`).
            m, p = bindings[here][segs[0]]
            return resolve(m, "::".join([p] + segs[1:]), seen | {(here, segs[0])})
        else:
            return None
        best = base
        for s in segs:
            if best + (s,) not in modules:
                break
            best += (s,)
        rest = segs[len(best) - len(base) :]
        if rest and rest[0] in bindings[best] and (best, rest[0]) not in seen:
            m, p = bindings[best][rest[0]]
            return resolve(m, "::".join([p] + rest[1:]), seen | {(best, rest[0])})
        return best

    edges = {m: set() for m in modules}
    for here, text in sources:
        if here == ():
            continue  # the crate root is a facade: its own items depend on nothing
        paths = [use_binding(item)[0] for m in re.finditer(r"\buse\s+([^;]+);", text) for item in expand_use(m.group(1))]
        text = re.sub(r"\buse\s+[^;]+;", "", text)
        paths += re.findall(rf"\b(?:(?:crate|super|self|{IDENT})::)+{IDENT}", text)
        for p in paths:
            t = resolve(here, p)
            if t is not None and t != here:
                edges[here].add(t)
    return modules, edges


# --- Python -------------------------------------------------------------------------------------


def top_level_imports(tree):
    """The import statements of a module that run when it is imported: those outside any
    function, class or lambda (in `if`/`try` blocks too)."""
    out, todo = [], list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo += [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
    return out


def python_package(pkg_dir):
    """(modules, edges) of the Python package in folder `pkg_dir`; modules are name tuples
    (`('peakorder', 'torch', '_inductor')`), a package is its `__init__.py`."""
    top = os.path.basename(os.path.normpath(pkg_dir))
    trees, packages = {}, set()
    for root, dirs, names in os.walk(pkg_dir):
        dirs[:] = sorted(d for d in dirs if os.path.isfile(os.path.join(root, d, "__init__.py")))
        rel = os.path.relpath(root, pkg_dir)
        base = (top,) + (() if rel == "." else tuple(rel.split(os.sep)))
        for n in sorted(names):
            if not n.endswith(".py"):
                continue
            path = os.path.join(root, n)
            module = base if n == "__init__.py" else base + (n[:-3],)
            if n == "__init__.py":
                packages.add(module)
            try:
                trees[module] = ast.parse(open(path, encoding="utf-8").read(), path)
            except SyntaxError as e:
                raise Unreadable(f"{path}: {e}")
    modules = set(trees)

    def from_target(here, node):
        """The module tuple `from X import ...` names in module `here` (None if outside)."""
        if node.level:
            pkg = here if here in packages else here[:-1]
            pkg = pkg[: len(pkg) - (node.level - 1)]
            return pkg + tuple(node.module.split(".") if node.module else ())
        if node.module and node.module.split(".")[0] == top:
            return tuple(node.module.split("."))
        return None

    # What each package's __init__.py binds when it runs: name -> name tuple it comes from;
    # its own definitions (functions, classes, assignments) -> None.
    binds = {p: {} for p in packages}
    for p in packages:
        for node in trees[p].body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                binds[p][node.name] = None
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(t, ast.Name):
                        binds[p][t.id] = None
        for node in top_level_imports(trees[p]):
            if isinstance(node, ast.ImportFrom):
                t = from_target(p, node)
                if t is not None:
                    for a in node.names:
                        if a.name != "*":
                            binds[p][a.asname or a.name] = t + (a.name,)
            else:
                for a in node.names:
                    if a.asname and a.name.split(".")[0] == top:
                        binds[p][a.asname] = tuple(a.name.split("."))

    def resolve(path, seen=frozenset()):
        """The module a name tuple (`peakorder._api.plan`, `peakorder.PeakorderError`) comes
        from: its longest module prefix, through what a package binds to where that comes
        from; None if outside the package."""
        mod = next((path[:i] for i in range(len(path), 0, -1) if path[:i] in modules), None)
        rest = path[len(mod) :] if mod else ()
        if mod is None or not rest or mod not in packages:
            return mod
        if rest[0] not in binds[mod]:
            return None  # neither a module here nor bound by the package: a native module
        origin = binds[mod][rest[0]]
        if origin is None:
            return mod  # the package's own definition
        if origin == mod + (rest[0],) or (mod, rest[0]) in seen:
            return None  # `from . import _native`: a submodule that is not Python source
        return resolve(origin + rest[1:], seen | {(mod, rest[0])})

    edges = {m: set() for m in modules}
    for here, tree in trees.items():
        # A package's __init__.py is a facade, as a crate root is: what it imports when it runs
        # it re-exports (a name imported from it resolves to where it comes from); only its own
        # definitions have edges.
        facade = set(map(id, top_level_imports(tree))) if here in packages else set()
        targets = []
        imported = {}  # name bound by `import peakorder[.x] [as y]` -> module tuple it names
        for node in ast.walk(tree):
            if id(node) in facade:
                continue
            if isinstance(node, ast.ImportFrom):
                t = from_target(here, node)
                if t is not None:
                    targets += [t if a.name == "*" else t + (a.name,) for a in node.names]
            elif isinstance(node, ast.Import):
                for a in node.names:
                    path = tuple(a.name.split("."))
                    if path[0] == top:
                        # `import a.b` binds `a`; what it is used for is named by the attribute
                        # chains below (the packages on the way are parents run first).
                        imported[a.asname or top] = path if a.asname else (top,)
                        if a.asname:
                            targets.append(path)
        # `peakorder.a.b` after `import peakorder`: the attribute chain names where it comes
        # from; the name used otherwise (`getattr(peakorder, name)`) names the module itself.
        chained = set()
        for node in ast.walk(tree):
            chain = []
            while isinstance(node, ast.Attribute):
                chain.insert(0, node.attr)
                node = node.value
            if chain and isinstance(node, ast.Name) and node.id in imported and id(node) not in chained:
                chained.add(id(node))
                targets.append(imported[node.id] + tuple(chain))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in imported and id(node) not in chained:
                targets.append(imported[node.id])
        for t in targets:
            r = resolve(t)
            if r is not None and r != here:
                edges[here].add(r)
    return modules, edges


# --- Circles ------------------------------------------------------------------------------------


def circles(modules, edges):
    """Tarjan's strongly connected components of more than one module, iteratively."""
    index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]
    for start in sorted(modules):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        sccs.append(comp)
    return sccs


def units(tree):
    """[(label, (modules, edges), sep, root name)] for one TREE argument."""
    if os.path.isfile(os.path.join(tree, "__init__.py")):
        return [(tree, python_package(tree), ".", None)]
    roots = [r for r in ("lib.rs", "main.rs") if os.path.isfile(os.path.join(tree, r))]
    if not roots:
        raise Unreadable(f"{tree}: neither a Rust source folder (lib.rs, main.rs) nor a Python package")
    return [(os.path.join(tree, r), rust_crate(os.path.join(tree, r)), "::", "crate") for r in roots]


def main(argv):
    verbose = "-v" in argv
    trees = [a for a in argv if not a.startswith("-")] or DEFAULT
    total = [0, 0, 0]
    found = False
    for tree in trees:
        try:
            checked = units(tree)
        except (Unreadable, OSError) as e:
            print(f"module-cycles: {e}", file=sys.stderr)
            return 2
        for label, (modules, edges), sep, root in checked:
            name = lambda m: sep.join(m) or root
            if verbose:
                print(f"== {label}")
                for m in sorted(modules):
                    print(f"{name(m)} -> {', '.join(sorted(name(t) for t in edges[m]))}")
            sccs = circles(modules, edges)
            for comp in sccs:
                comp = set(comp)
                print(f"circle in {label}:", ", ".join(sorted(name(m) for m in comp)))
                for m in sorted(comp):
                    for t in sorted(edges[m] & comp):
                        print(f"  {name(m)} -> {name(t)}")
            n_imports = sum(len(e) for e in edges.values())
            print(f"{label}: {len(modules)} modules, {n_imports} imports, {len(sccs)} circles")
            total[0] += len(modules)
            total[1] += n_imports
            total[2] += len(sccs)
            found |= bool(sccs)
    if len(trees) > 1:
        print(f"in all: {total[0]} modules, {total[1]} imports, {total[2]} circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
