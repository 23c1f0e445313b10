//! A graph given as Python objects (a dict), written as JSON text byte for byte as
//! `json.dumps(graph, allow_nan=False, separators=(",", ":"), default=default,
//! check_circular=False)` writes it (CPython's C encoder, `Modules/_json.c`), without the Python
//! object that encoder makes per string, number and dict item. The text then goes through the
//! core's one parser (`core/src/format.rs`), so a dict is validated as its file would be and every
//! error, positions included, is the one the CLI prints for that file (docs/design.md §2).
//!
//! The C encoder's rules, in its order: `None`, `True`, `False`; `str` and its subclasses
//! (ASCII out: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other characters outside `' '..='~'`
//! as `\uXXXX`, a UTF-16 surrogate pair above U+FFFF, a lone surrogate as its own `\uXXXX`);
//! `int` and its subclasses (as `int.__repr__`); `float` and its subclasses (`float.__repr__`;
//! NaN and the infinities are refused); `list` and `tuple` (a subclass is read through its
//! iterator, as `PySequence_Fast` does); `dict` (a subclass through its `items()`); anything else
//! is passed to `default` and its result written in its place. Keys are `str`, `float`, `bool`,
//! `None` or `int`, written as strings. Every container and every `default` call counts one
//! level with `Py_EnterRecursiveCall`, as in the C encoder, so a dict that holds itself ends in
//! the same RecursionError; the walk is iterative (an explicit stack), so the native stack does
//! not grow with the nesting. Where json.dumps raises, the same exception with the same message
//! is raised: the rare cases (a NaN, a key of another type) are handed to `json.dumps` itself.
//!
//! Speed (a 10,000-op graph: 38,000 dicts, 230,000 strings with the keys): exact types are told
//! apart by one pointer comparison, values are read through borrowed references (no reference
//! counting unless Python code may run), and the encoding of dict keys, a handful of interned
//! strings repeated on every op and tensor, is looked up by address ([`KeyCache`]).

use std::os::raw::c_int;
use std::ptr::{addr_of_mut, null_mut};

use pyo3::exceptions::{PyRecursionError, PyTypeError, PyValueError};
use pyo3::ffi::{self, PyObject};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::{intern, PyTypeInfo};

/// Where the walk is inside an open container (or a `default` call), one per nesting level.
/// Each holds a strong reference to what it reads, so the values it hands out borrowed stay
/// alive until they are written.
enum Frame<'py> {
    /// Counted, not yet known what (the level is counted before anything can fail).
    Opening,
    /// A list (exact, or the items of another sequence), at item `.1`.
    List(Bound<'py, PyList>, usize),
    /// An exact tuple, at item `.1`.
    Tuple(Bound<'py, PyTuple>, usize),
    /// A dict, at `PyDict_Next` position `pos`.
    Dict {
        dict: Bound<'py, PyDict>,
        pos: ffi::Py_ssize_t,
        first: bool,
    },
    /// A dict subclass: the list its `items()` returned, at item `.1`.
    Items(Bound<'py, PyList>, usize),
    /// `default(obj)`, held while it is written.
    Default { _result: Bound<'py, PyAny> },
}

/// The JSON text of `obj`, as `json.dumps(obj, allow_nan=False, separators=(",", ":"),
/// default=default, check_circular=False)` writes it, or the exception it raises.
pub fn dumps(obj: &Bound<'_, PyAny>, default: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut w = Writer {
        py: obj.py(),
        out: Vec::with_capacity(1 << 16),
        ucs4: Vec::new(),
        keys: KeyCache::new(),
    };
    let mut stack = Vec::new();
    let done = walk(&mut w, &mut stack, obj, default);
    // Each level still open was counted by Py_EnterRecursiveCall (the walk stopped with an
    // error): give them back, as the C encoder does while unwinding.
    for _ in 0..stack.len() {
        // SAFETY: one Py_LeaveRecursiveCall per successful Py_EnterRecursiveCall, GIL held.
        unsafe { ffi::Py_LeaveRecursiveCall() };
    }
    done?;
    // Only ASCII is ever written.
    String::from_utf8(w.out).map_err(|_| PyValueError::new_err("internal: non-ASCII JSON text"))
}

fn walk<'py>(
    w: &mut Writer<'py>,
    stack: &mut Vec<Frame<'py>>,
    root: &Bound<'py, PyAny>,
    default: &Bound<'py, PyAny>,
) -> PyResult<()> {
    let py = root.py();
    // The value to write next: borrowed from `root` or from the top frame, which keep it alive;
    // nothing runs between taking it and writing it.
    let mut next: *mut PyObject = root.as_ptr();
    loop {
        if !next.is_null() {
            // SAFETY: see `next`.
            let v = unsafe { Borrowed::from_ptr(py, next) };
            next = value(w, stack, v, default)?;
            continue;
        }
        let Some(top) = stack.last_mut() else {
            return Ok(());
        };
        match top {
            Frame::List(list, i) => {
                // SAFETY: GIL held; the size is read again each time, as in the C encoder.
                let n = unsafe { ffi::PyList_Size(list.as_ptr()) };
                if (*i as ffi::Py_ssize_t) < n {
                    if *i > 0 {
                        w.out.push(b',');
                    }
                    // SAFETY: GIL held, index in range; a borrowed reference the list keeps.
                    next = unsafe { ffi::PyList_GetItem(list.as_ptr(), *i as ffi::Py_ssize_t) };
                    if next.is_null() {
                        return Err(PyErr::fetch(py));
                    }
                    *i += 1;
                    continue;
                }
                w.out.push(b']');
            }
            Frame::Tuple(tuple, i) => {
                if *i < tuple.len() {
                    if *i > 0 {
                        w.out.push(b',');
                    }
                    // SAFETY: GIL held, index in range; a borrowed reference the tuple keeps.
                    next = unsafe { ffi::PyTuple_GetItem(tuple.as_ptr(), *i as ffi::Py_ssize_t) };
                    if next.is_null() {
                        return Err(PyErr::fetch(py));
                    }
                    *i += 1;
                    continue;
                }
                w.out.push(b']');
            }
            Frame::Dict { dict, pos, first } => {
                let (mut k, mut v) = (null_mut(), null_mut());
                // SAFETY: GIL held; PyDict_Next bounds-checks `pos` against the dict's current
                // size, so a dict changed meanwhile by `default` is still read safely. The key
                // and value are borrowed references the dict keeps.
                if unsafe { ffi::PyDict_Next(dict.as_ptr(), pos, &mut k, &mut v) } != 0 {
                    // SAFETY: as above.
                    w.key(*first, unsafe { Borrowed::from_ptr(py, k) })?;
                    *first = false;
                    next = v;
                    continue;
                }
                w.out.push(b'}');
            }
            Frame::Items(items, i) => {
                if *i < items.len() {
                    let pair = items.get_item(*i)?;
                    let pair = match pair.cast::<PyTuple>() {
                        Ok(t) if t.len() == 2 => t,
                        _ => return Err(PyValueError::new_err("items must return 2-tuples")),
                    };
                    w.key(*i == 0, pair.get_borrowed_item(0)?)?;
                    *i += 1;
                    // SAFETY: GIL held; a borrowed reference the pair keeps, and the pair is
                    // kept by the list `items()` returned, which only this frame holds.
                    next = unsafe { ffi::PyTuple_GetItem(pair.as_ptr(), 1) };
                    if next.is_null() {
                        return Err(PyErr::fetch(py));
                    }
                    continue;
                }
                w.out.push(b'}');
            }
            Frame::Default { .. } => {}
            Frame::Opening => unreachable!("a level is set as soon as it is opened"),
        }
        close(stack);
    }
}

/// What the C encoder makes of an object, in its order of checks.
#[derive(Clone, Copy)]
enum Kind {
    Null,
    True,
    False,
    Str,
    Int,
    Float,
    List,
    Tuple,
    /// A list or tuple subclass, read through its iterator.
    OtherSequence,
    Dict,
    DictSubclass,
    /// No JSON type: `default` is called.
    Other,
}

fn kind(v: Borrowed<'_, '_, PyAny>) -> Kind {
    let p = v.as_ptr();
    // SAFETY: compares the object and its type with the singletons' and built-in types'
    // addresses, GIL held. The exact types, by far the most common, are found without a call.
    unsafe {
        let t = ffi::Py_TYPE(p);
        if p == ffi::Py_None() {
            return Kind::Null;
        } else if p == ffi::Py_True() {
            return Kind::True;
        } else if p == ffi::Py_False() {
            return Kind::False;
        } else if t == addr_of_mut!(ffi::PyUnicode_Type) {
            return Kind::Str;
        } else if t == addr_of_mut!(ffi::PyLong_Type) {
            return Kind::Int;
        } else if t == addr_of_mut!(ffi::PyDict_Type) {
            return Kind::Dict;
        } else if t == addr_of_mut!(ffi::PyList_Type) {
            return Kind::List;
        } else if t == addr_of_mut!(ffi::PyTuple_Type) {
            return Kind::Tuple;
        } else if t == addr_of_mut!(ffi::PyFloat_Type) {
            return Kind::Float;
        }
    }
    if v.is_instance_of::<PyString>() {
        Kind::Str
    } else if v.is_instance_of::<PyInt>() {
        Kind::Int
    } else if v.is_instance_of::<PyFloat>() {
        Kind::Float
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        Kind::OtherSequence
    } else if v.is_instance_of::<PyDict>() {
        Kind::DictSubclass
    } else {
        Kind::Other
    }
}

/// Writes a value, or opens a container (a new frame, whose first value `walk` reads next). An
/// object of no JSON type opens a frame holding `default(obj)`, which is returned: the value to
/// write in its place (else null).
fn value<'py>(
    w: &mut Writer<'py>,
    stack: &mut Vec<Frame<'py>>,
    v: Borrowed<'_, 'py, PyAny>,
    default: &Bound<'py, PyAny>,
) -> PyResult<*mut PyObject> {
    // SAFETY (the unchecked casts): `kind` checked the type.
    match kind(v) {
        Kind::Null => w.out.extend_from_slice(b"null"),
        Kind::True => w.out.extend_from_slice(b"true"),
        Kind::False => w.out.extend_from_slice(b"false"),
        Kind::Str => w.string(v.as_ptr())?,
        Kind::Int => w.int(v)?,
        Kind::Float => w.float(unsafe { v.cast_unchecked() })?,
        Kind::List => open_list(
            w,
            stack,
            Seq::List(unsafe { v.to_owned().cast_into_unchecked() }),
        )?,
        Kind::Tuple => open_list(
            w,
            stack,
            Seq::Tuple(unsafe { v.to_owned().cast_into_unchecked() }),
        )?,
        // Owned from here on, as for every container: Python code may run (__iter__, items(),
        // default).
        Kind::OtherSequence => open_list(w, stack, Seq::Other(v.to_owned()))?,
        Kind::Dict => open_dict(
            w,
            stack,
            unsafe { v.to_owned().cast_into_unchecked() },
            true,
        )?,
        Kind::DictSubclass => open_dict(
            w,
            stack,
            unsafe { v.to_owned().cast_into_unchecked() },
            false,
        )?,
        Kind::Other => {
            let v = v.to_owned();
            open(w.py, stack)?;
            let result = default.call1((v,))?;
            let next = result.as_ptr();
            *top(stack) = Frame::Default { _result: result };
            return Ok(next);
        }
    }
    Ok(null_mut())
}

/// A sequence `value` opens.
enum Seq<'py> {
    List(Bound<'py, PyList>),
    Tuple(Bound<'py, PyTuple>),
    /// A list or tuple subclass, read through its iterator.
    Other(Bound<'py, PyAny>),
}

fn open_list<'py>(w: &mut Writer<'py>, stack: &mut Vec<Frame<'py>>, seq: Seq<'py>) -> PyResult<()> {
    let py = w.py;
    open(py, stack)?;
    let (empty, frame) = match seq {
        Seq::List(l) => (l.is_empty(), Frame::List(l, 0)),
        Seq::Tuple(t) => (t.is_empty(), Frame::Tuple(t, 0)),
        Seq::Other(o) => {
            let l = sequence_items(&o)?;
            (l.is_empty(), Frame::List(l, 0))
        }
    };
    if empty {
        w.out.extend_from_slice(b"[]");
        close(stack);
    } else {
        w.out.push(b'[');
        *top(stack) = frame;
    }
    Ok(())
}

fn open_dict<'py>(
    w: &mut Writer<'py>,
    stack: &mut Vec<Frame<'py>>,
    dict: Bound<'py, PyDict>,
    exact: bool,
) -> PyResult<()> {
    let py = w.py;
    open(py, stack)?;
    if dict.is_empty() {
        // The C encoder's fast path: a subclass's items() is not called.
        w.out.extend_from_slice(b"{}");
        close(stack);
        return Ok(());
    }
    let frame = if exact {
        Frame::Dict {
            dict,
            pos: 0,
            first: true,
        }
    } else {
        // SAFETY: GIL held; PyMapping_Items returns a new reference to a list (a fresh one, from
        // a subclass's items()), or NULL with an exception set.
        let items =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyMapping_Items(dict.as_ptr()))? };
        Frame::Items(items.cast_into::<PyList>()?, 0)
    };
    w.out.push(b'{');
    *top(stack) = frame;
    Ok(())
}

/// The items of a list or tuple subclass, as `PySequence_Fast` reads them (its iterator).
fn sequence_items<'py>(v: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let it = v.try_iter().map_err(|e| {
        if e.is_instance_of::<PyTypeError>(v.py()) {
            PyTypeError::new_err("_iterencode_list needs a sequence")
        } else {
            e
        }
    })?;
    // SAFETY: GIL held; PySequence_List returns a new reference to a list, or NULL with an
    // exception set.
    let list = unsafe { Bound::from_owned_ptr_or_err(v.py(), ffi::PySequence_List(it.as_ptr()))? };
    Ok(list.cast_into::<PyList>()?)
}

fn top<'a, 'py>(stack: &'a mut [Frame<'py>]) -> &'a mut Frame<'py> {
    stack.last_mut().expect("a level was just opened")
}

/// Most levels, whatever Py_EnterRecursiveCall allows: up to CPython 3.13 it counts them against
/// the recursion limit (Python's, or from 3.12 the C one) and stops far sooner, exactly where the
/// C encoder stops; from 3.14 on it measures the native stack, which this walk does not use, so it
/// would never stop a dict that holds itself. (The core refuses more than 128 levels anyway.)
const MAX_DEPTH: usize = 100_000;

/// Counts a level, as `Py_EnterRecursiveCall(" while encoding a JSON object")` in the C encoder.
fn open(py: Python<'_>, stack: &mut Vec<Frame<'_>>) -> PyResult<()> {
    if stack.len() >= MAX_DEPTH {
        return Err(PyRecursionError::new_err(
            "maximum recursion depth exceeded while encoding a JSON object",
        ));
    }
    // SAFETY: GIL held; a non-zero return sets RecursionError. A successful call is matched by
    // one Py_LeaveRecursiveCall, in `close` or when `dumps` unwinds the stack.
    if unsafe { ffi::Py_EnterRecursiveCall(c" while encoding a JSON object".as_ptr()) } != 0 {
        return Err(PyErr::fetch(py));
    }
    stack.push(Frame::Opening);
    Ok(())
}

fn close(stack: &mut Vec<Frame<'_>>) {
    stack.pop();
    // SAFETY: matches the Py_EnterRecursiveCall of `open`, GIL held.
    unsafe { ffi::Py_LeaveRecursiveCall() };
}

/// The exception `json.dumps(obj, allow_nan=False)` raises, for a value the walk refuses.
fn json_error(obj: &Bound<'_, PyAny>) -> PyErr {
    let py = obj.py();
    let dumps = || -> PyResult<()> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("allow_nan", false)?;
        py.import("json")?
            .getattr("dumps")?
            .call((obj,), Some(&kwargs))?;
        Ok(())
    };
    match dumps() {
        Err(e) => e,
        Ok(()) => PyValueError::new_err(format!(
            "internal: json.dumps accepts {} but the graph encoder does not",
            obj.repr().map(|r| r.to_string()).unwrap_or_default()
        )),
    }
}

/// The output, a buffer for the characters of one string, and the keys seen.
struct Writer<'py> {
    py: Python<'py>,
    out: Vec<u8>,
    ucs4: Vec<ffi::Py_UCS4>,
    keys: KeyCache<'py>,
}

impl<'py> Writer<'py> {
    /// A dict key with its `:`, and the `,` before it but for the first.
    fn key(&mut self, first: bool, k: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        if !first {
            self.out.push(b',');
        }
        let p = k.as_ptr();
        // SAFETY: the type's address, GIL held.
        if unsafe { ffi::Py_TYPE(p) == addr_of_mut!(ffi::PyUnicode_Type) }
            || k.is_instance_of::<PyString>()
        {
            if let Some(text) = self.keys.get(p) {
                self.out.extend_from_slice(text);
            } else {
                let start = self.out.len();
                self.string(p)?;
                self.keys.put(k, &self.out[start..]);
            }
        } else if let Ok(f) = k.cast::<PyFloat>() {
            self.out.push(b'"');
            self.float(f)?;
            self.out.push(b'"');
        } else if k.is_none() {
            self.out.extend_from_slice(b"\"null\"");
        } else if p == unsafe { ffi::Py_True() } {
            self.out.extend_from_slice(b"\"true\"");
        } else if p == unsafe { ffi::Py_False() } {
            self.out.extend_from_slice(b"\"false\"");
        } else if k.is_instance_of::<PyInt>() {
            self.out.push(b'"');
            self.int(k)?;
            self.out.push(b'"');
        } else {
            // "keys must be str, int, float, bool or None, not ...", in this Python's words.
            // Owned first: hashing it into the probe runs its __hash__.
            let k = k.to_owned();
            let probe = PyDict::new(k.py());
            probe.set_item(&k, k.py().None())?;
            return Err(json_error(&probe));
        }
        self.out.push(b':');
        Ok(())
    }

    /// A string (`p` is a str or a subclass), quoted and escaped as the C encoder's
    /// `ensure_ascii` output.
    fn string(&mut self, p: *mut PyObject) -> PyResult<()> {
        let py = self.py;
        // SAFETY: GIL held; `p` is a str, whose length is its number of code points, and
        // `ucs4` has room for that many before PyUnicode_AsUCS4 writes them (no NUL).
        let chars = unsafe {
            let n = usize::try_from(ffi::PyUnicode_GetLength(p)).map_err(|_| PyErr::fetch(py))?;
            self.ucs4.clear();
            self.ucs4.reserve(n);
            if n > 0 {
                if ffi::PyUnicode_AsUCS4(p, self.ucs4.as_mut_ptr(), n as ffi::Py_ssize_t, 0)
                    .is_null()
                {
                    return Err(PyErr::fetch(py));
                }
                self.ucs4.set_len(n);
            }
            &self.ucs4[..]
        };
        let out = &mut self.out;
        out.reserve(chars.len() + 2);
        out.push(b'"');
        let mut rest = chars;
        loop {
            let plain = rest
                .iter()
                .position(|&c| !(0x20..0x7f).contains(&c) || c == 0x22 || c == 0x5c)
                .unwrap_or(rest.len());
            out.extend(rest[..plain].iter().map(|&c| c as u8));
            let Some((&c, tail)) = rest[plain..].split_first() else {
                break;
            };
            escape(out, c);
            rest = tail;
        }
        out.push(b'"');
        Ok(())
    }

    /// An int (or subclass), as `int.__repr__` writes it.
    fn int(&mut self, v: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        let py = v.py();
        let mut overflow: c_int = 0;
        // SAFETY: GIL held; `v` is an int, so its value is read directly (no __index__).
        let n = unsafe { ffi::PyLong_AsLongLongAndOverflow(v.as_ptr(), &mut overflow) };
        if overflow == 0 {
            if n == -1 {
                if let Some(e) = PyErr::take(py) {
                    return Err(e);
                }
            }
            self.out
                .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
            return Ok(());
        }
        // Beyond 64 bits: Python's digits (and its limit on their number, a ValueError). Owned
        // while Python runs (a collection it triggers could run any finalizer).
        let v = v.to_owned();
        let digits = PyInt::type_object(py)
            .getattr(intern!(py, "__repr__"))?
            .call1((v,))?;
        self.ascii(digits.cast::<PyString>()?)
    }

    /// A finite float, as `float.__repr__` writes it; NaN and the infinities raise json.dumps's
    /// error.
    fn float(&mut self, f: Borrowed<'_, 'py, PyFloat>) -> PyResult<()> {
        // Owned while Python runs, as in `int`.
        let f = f.to_owned();
        let x = f.value();
        if !x.is_finite() {
            return Err(json_error(&f));
        }
        let r = if f.is_exact_instance_of::<PyFloat>() {
            f.repr()?
        } else {
            PyFloat::new(f.py(), x).repr()?
        };
        self.ascii(&r)
    }

    /// A number's repr (ASCII digits, signs, dots and letters), as is.
    fn ascii(&mut self, s: &Bound<'_, PyString>) -> PyResult<()> {
        let mark = self.out.len();
        self.string(s.as_ptr())?;
        // Drop the quotes `string` put around it: nothing in it was escaped.
        self.out.pop();
        self.out.remove(mark);
        Ok(())
    }
}

/// One character the C encoder escapes: `\"`, `\\`, the short escapes, else `\uXXXX` (lowercase
/// hex), as a UTF-16 surrogate pair above U+FFFF.
fn escape(out: &mut Vec<u8>, c: u32) {
    let short = match c {
        0x22 => b'"',
        0x5c => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        0x0a => b'n',
        0x0d => b'r',
        0x09 => b't',
        _ => 0,
    };
    if short != 0 {
        out.extend_from_slice(&[b'\\', short]);
    } else if c >= 0x10000 {
        let v = c - 0x10000;
        hex4(out, 0xd800 | (v >> 10));
        hex4(out, 0xdc00 | (v & 0x3ff));
    } else {
        hex4(out, c);
    }
}

fn hex4(out: &mut Vec<u8>, u: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(&[
        b'\\',
        b'u',
        HEX[(u >> 12 & 0xf) as usize],
        HEX[(u >> 8 & 0xf) as usize],
        HEX[(u >> 4 & 0xf) as usize],
        HEX[(u & 0xf) as usize],
    ]);
}

/// The encoded text of recently written keys, by the key's address: a graph's keys are a few
/// strings (`id`, `inputs`, `shape`, ... interned by Python, or shared by `json.loads`) written
/// again on every op and tensor. Direct-mapped; each slot holds a strong reference to its key, so
/// an address cannot be reused by another string while it is cached.
struct KeyCache<'py> {
    slots: Vec<(Option<Bound<'py, PyAny>>, u32, u32)>,
    text: Vec<u8>,
}

impl<'py> KeyCache<'py> {
    const SLOTS: usize = 256;
    /// Longer keys are written each time (they are rarely repeated).
    const LONGEST: usize = 64;
    /// When `text` is this long, it and every slot are cleared.
    const MAX_TEXT: usize = 1 << 16;

    fn new() -> Self {
        KeyCache {
            slots: (0..Self::SLOTS).map(|_| (None, 0, 0)).collect(),
            text: Vec::new(),
        }
    }

    fn slot(p: *mut PyObject) -> usize {
        let a = p as usize;
        ((a >> 4) ^ (a >> 12)) % Self::SLOTS
    }

    fn get(&self, p: *mut PyObject) -> Option<&[u8]> {
        match &self.slots[Self::slot(p)] {
            (Some(k), start, len) if k.as_ptr() == p => {
                Some(&self.text[*start as usize..(*start + *len) as usize])
            }
            _ => None,
        }
    }

    fn put(&mut self, k: Borrowed<'_, 'py, PyAny>, encoded: &[u8]) {
        if encoded.len() > Self::LONGEST {
            return;
        }
        if self.text.len() + encoded.len() > Self::MAX_TEXT {
            self.text.clear();
            self.slots.iter_mut().for_each(|s| *s = (None, 0, 0));
        }
        let start = self.text.len() as u32;
        self.text.extend_from_slice(encoded);
        self.slots[Self::slot(k.as_ptr())] = (Some(k.to_owned()), start, encoded.len() as u32);
    }
}
