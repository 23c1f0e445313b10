#!/usr/bin/env python3
"""Finds import circles among a crate's modules (docs/design.md rule: no module imports one that
imports it back).

Usage: scripts/module-cycles.py [-v] [SRC_DIR]   (default core/src; -v lists every module's
imports). Exit status 1 when a circle exists.

Every path a module's code names (`use` lines, their `{...}` groups, and paths in expressions and
types: `crate::a::b`, `super::x`, `self::x`, or a child module's name) is resolved to the longest
module prefix it names; that module is an edge. Comments are ignored. Declaring a child (`mod x;`)
is not an edge, and the crate root is a facade: a name it re-exports (`pub use a::X`) resolves to
where it comes from, and its own items (type aliases) depend on nothing. Strongly connected
components of more than one module (Tarjan's algorithm) are the circles.
"""
import os
import re
import sys

args = [a for a in sys.argv[1:] if not a.startswith("-")]
src = args[0] if args else "core/src"
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def module_of(path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


files = {}
for root, _, names in os.walk(src):
    for n in names:
        if n.endswith(".rs"):
            p = os.path.join(root, n)
            files[module_of(p)] = p
modules = set(files)


def strip(text):
    # Comments out (line and block), string literals emptied (they may hold `::`).
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return text


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = tree.strip()
    m = re.match(r"^(.*?)\{(.*)\}$", tree, flags=re.S)
    if not m:
        return [re.sub(r"\s+as\s+\w+$", "", tree).strip()]
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


def resolve(here, path):
    """The module a path names from module `here` (None if outside the crate)."""
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
    else:
        return None
    best = base
    for i in range(len(segs)):
        if base + tuple(segs[: i + 1]) in modules:
            best = base + tuple(segs[: i + 1])
        else:
            break
    if best == () and segs:
        return root_exports.get(segs[0], ())
    return best


# The crate root's re-exports: name -> module it comes from.
root_exports = {}
root_text = strip(open(files[()]).read())
for m in re.finditer(r"\bpub\s+use\s+([^;]+);", root_text):
    for p in expand_use(m.group(1)):
        name = p.split("::")[-1].strip()
        target = resolve((), p.rsplit("::", 1)[0])
        if target:
            root_exports[name] = target

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


sources = []
for here, path in files.items():
    if here != ():
        sources += inline_modules(here, strip(open(path).read()))
for here, _ in sources:
    modules.add(here)

edges = {m: set() for m in modules}
for here, text in sources:
    paths = []
    # Names a `use` binds to a module (`use crate::order;`) are prefixes too.
    aliases = {}
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        for p in expand_use(m.group(1)):
            t = resolve(here, p)
            last = re.split(r"\s+as\s+", p.strip())[-1].split("::")[-1]
            if t is not None and t != () and t[-1] == p.strip().split("::")[-1].split()[0]:
                aliases[last] = t
    for a, t in aliases.items():
        for m in re.finditer(rf"(?<![:\w]){a}::((?:{IDENT}::)*{IDENT})", text):
            q = "crate::" + "::".join(t) + "::" + m.group(1)
            r = resolve(here, q)
            if r is not None and r != here:
                edges[here].add(r)
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        paths += expand_use(m.group(1))
    text = re.sub(r"\buse\s+[^;]+;", "", text)
    paths += re.findall(rf"\b(?:(?:crate|super|self|{IDENT})::)+{IDENT}", text)
    for p in paths:
        t = resolve(here, p)
        if t is not None and t != here:
            edges[here].add(t)

# Tarjan's strongly connected components, iteratively.
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

name = lambda m: "::".join(m) or "crate"
if "-v" in sys.argv:
    for m in sorted(modules):
        print(f"{name(m)} -> {', '.join(sorted(name(t) for t in edges[m]))}")
for comp in sccs:
    comp = set(comp)
    print("circle:", ", ".join(sorted(name(m) for m in comp)))
    for m in sorted(comp):
        for t in sorted(edges[m] & comp):
            print(f"  {name(m)} -> {name(t)}")
print(f"{len(modules)} modules, {sum(len(e) for e in edges.values())} imports, {len(sccs)} circles")
sys.exit(1 if sccs else 0)
