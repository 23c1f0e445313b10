//! ONNX model → graph JSON (docs/design.md §2).
//!
//! - Every value the graph's nodes, inputs and outputs name becomes a tensor; its size comes from
//!   the model's type information: initializers (dims), graph inputs and outputs, `value_info`,
//!   and the `value` of `Constant` nodes.
//! - Initializers (weights) are graph inputs that are never freed (not donated), like graph inputs.
//! - A shape that is unknown, or has a symbolic dimension no `--assume-dim` gives a value, is an
//!   error naming the tensor (and the dimension).
//! - A node with subgraphs (If, Loop, Scan) is one op; the values its bodies read from the outer
//!   graph become its inputs, since they must stay alive while it runs. Memory inside the bodies is
//!   not modelled; the op's `meta.note` says so.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use peakorder::format::{GraphSpec, OpSpec, TensorSpec, FORMAT};
use prost::Message;
use serde_json::{json, Map, Value};

use super::onnx_proto::{
    tensor_shape_proto::dimension, type_proto, AttributeProto, GraphProto, ModelProto, TensorProto,
    TypeProto,
};

/// How to import.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Values for symbolic dimensions (`--assume-dim NAME=VALUE`).
    pub assume_dims: BTreeMap<String, u64>,
}

/// The element size of an ONNX data type, and its docs/design.md name when it has one.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    /// A docs/design.md dtype: written as `shape` + `dtype`.
    Named(&'static str),
    /// Any other fixed-size type: written as `bytes` (packed sub-byte types round up to a byte),
    /// with the ONNX name and shape in `meta`.
    Bits(u64, &'static str),
}

/// ONNX's `TensorProto.DataType`, mapped explicitly. String tensors have no fixed size.
fn elem(data_type: i32) -> Result<Elem, String> {
    use Elem::*;
    Ok(match data_type {
        1 => Named("f32"),
        2 => Named("u8"),
        3 => Named("i8"),
        4 => Bits(16, "uint16"),
        5 => Named("i16"),
        6 => Named("i32"),
        7 => Named("i64"),
        8 => return Err("has element type STRING, whose size is not known from its shape".into()),
        9 => Named("bool"),
        10 => Named("f16"),
        11 => Named("f64"),
        12 => Bits(32, "uint32"),
        13 => Bits(64, "uint64"),
        14 => Bits(64, "complex64"),
        15 => Bits(128, "complex128"),
        16 => Named("bf16"),
        17 => Named("f8e4m3"),
        18 => Bits(8, "float8e4m3fnuz"),
        19 => Named("f8e5m2"),
        20 => Bits(8, "float8e5m2fnuz"),
        21 => Bits(4, "uint4"),
        22 => Bits(4, "int4"),
        23 => Bits(4, "float4e2m1"),
        24 => Bits(8, "float8e8m0"),
        25 => Bits(2, "uint2"),
        26 => Bits(2, "int2"),
        0 => return Err("has an undefined element type".into()),
        n => {
            return Err(format!(
                "has ONNX element type {n}, which peakorder does not know"
            ))
        }
    })
}

/// One dimension as the model gives it.
#[derive(Clone, Debug, PartialEq)]
enum Dim {
    Known(i64),
    Symbolic(String),
    Unknown,
}

/// What the model says about a value's type.
#[derive(Clone, Debug)]
enum Info {
    Tensor {
        elem_type: i32,
        dims: Option<Vec<Dim>>,
    },
    /// Sparse initializers: bytes are known directly.
    Bytes(u64),
    /// Sequence, map, optional, opaque, sparse (as a value type).
    NotTensor(&'static str),
}

fn info_of_type(t: &TypeProto) -> Option<Info> {
    use type_proto::Value as V;
    Some(match t.value.as_ref()? {
        V::TensorType(tt) => Info::Tensor {
            elem_type: tt.elem_type.unwrap_or(0),
            dims: tt.shape.as_ref().map(|s| {
                s.dim
                    .iter()
                    .map(|d| match &d.value {
                        Some(dimension::Value::DimValue(v)) => Dim::Known(*v),
                        Some(dimension::Value::DimParam(p)) if !p.is_empty() => {
                            Dim::Symbolic(p.clone())
                        }
                        _ => Dim::Unknown,
                    })
                    .collect()
            }),
        },
        V::SequenceType(_) => Info::NotTensor("a sequence"),
        V::MapType(_) => Info::NotTensor("a map"),
        V::OpaqueType(_) => Info::NotTensor("an opaque value"),
        V::SparseTensorType(_) => Info::NotTensor("a sparse tensor"),
        V::OptionalType(_) => Info::NotTensor("an optional"),
    })
}

fn info_of_tensor(t: &TensorProto) -> Info {
    Info::Tensor {
        elem_type: t.data_type.unwrap_or(0),
        dims: Some(t.dims.iter().map(|&d| Dim::Known(d)).collect()),
    }
}

/// Has this info a complete shape? Better info replaces worse.
fn rank(i: &Info) -> u8 {
    match i {
        Info::Tensor { dims: Some(d), .. } if d.iter().all(|x| matches!(x, Dim::Known(_))) => 3,
        Info::Tensor { dims: Some(_), .. } | Info::Bytes(_) => 2,
        Info::Tensor { dims: None, .. } => 1,
        Info::NotTensor(_) => 0,
    }
}

fn show(s: &str) -> String {
    format!("{s:?}")
}

/// Reads an ONNX model and returns the graph. Errors name the offending tensor or node.
pub fn import(bytes: &[u8], opts: &Options) -> Result<GraphSpec, String> {
    // prost's default recursion limit turns absurdly nested (or hostile) input into an error.
    let model = ModelProto::decode(bytes)
        .map_err(|e| format!("not an ONNX model (protobuf decoding failed: {e})"))?;
    let graph = model
        .graph
        .as_ref()
        .ok_or("not an ONNX model: it has no graph")?;
    if graph.node.is_empty() && graph.input.is_empty() && graph.output.is_empty() {
        return Err("not an ONNX model: its graph is empty".into());
    }

    // Type information, best first.
    let mut info: HashMap<&str, Info> = HashMap::new();
    fn add<'a>(info: &mut HashMap<&'a str, Info>, name: &'a str, i: Info) {
        match info.get(name) {
            Some(old) if rank(old) >= rank(&i) => {}
            _ => {
                info.insert(name, i);
            }
        }
    }
    for t in &graph.initializer {
        add(
            &mut info,
            t.name.as_deref().unwrap_or(""),
            info_of_tensor(t),
        );
    }
    for s in &graph.sparse_initializer {
        let name = s
            .values
            .as_ref()
            .and_then(|v| v.name.as_deref())
            .unwrap_or("");
        let part = |t: &Option<TensorProto>| -> Result<u64, String> {
            match t {
                None => Ok(0),
                Some(t) => bytes_of(
                    name,
                    &elem(t.data_type.unwrap_or(0))
                        .map_err(|e| format!("sparse initializer {} {e}", show(name)))?,
                    &t.dims,
                )
                .map(|(b, _)| b),
            }
        };
        let total = part(&s.values)?
            .checked_add(part(&s.indices)?)
            .ok_or_else(|| format!("sparse initializer {} is too large", show(name)))?;
        add(&mut info, name, Info::Bytes(total));
    }
    for v in graph
        .input
        .iter()
        .chain(&graph.output)
        .chain(&graph.value_info)
    {
        if let (Some(name), Some(i)) = (v.name.as_deref(), v.r#type.as_ref().and_then(info_of_type))
        {
            add(&mut info, name, i);
        }
    }
    for n in &graph.node {
        if n.op_type.as_deref() == Some("Constant") && n.output.len() == 1 {
            if let Some(t) = n.attribute.iter().find_map(|a| a.t.as_ref()) {
                add(&mut info, &n.output[0], info_of_tensor(t));
            }
        }
    }

    // Tensors in a stable order: graph inputs, initializers, then node outputs.
    let mut names: Vec<&str> = Vec::new();
    let mut declared: HashSet<&str> = HashSet::new();
    let mut is_initializer: HashSet<&str> = HashSet::new();
    for v in &graph.input {
        let n = v.name.as_deref().unwrap_or("");
        if !n.is_empty() && declared.insert(n) {
            names.push(n);
        }
    }
    for n in graph
        .initializer
        .iter()
        .map(|t| t.name.as_deref().unwrap_or(""))
        .chain(graph.sparse_initializer.iter().map(|s| {
            s.values
                .as_ref()
                .and_then(|v| v.name.as_deref())
                .unwrap_or("")
        }))
    {
        if n.is_empty() {
            return Err("an initializer has no name".into());
        }
        is_initializer.insert(n);
        if declared.insert(n) {
            names.push(n);
        }
    }
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (i, n) in graph.node.iter().enumerate() {
        for o in n.output.iter().filter(|o| !o.is_empty()) {
            if let Some(&j) = producer.get(o.as_str()) {
                return Err(format!(
                    "tensor {} is produced by two nodes, {} and {}",
                    show(o),
                    show(&node_label(graph, j)),
                    show(&node_label(graph, i))
                ));
            }
            if is_initializer.contains(o.as_str()) {
                return Err(format!(
                    "tensor {} is an initializer and also produced by node {}",
                    show(o),
                    show(&node_label(graph, i))
                ));
            }
            producer.insert(o, i);
            if declared.insert(o) {
                names.push(o);
            }
        }
    }

    // Ops.
    let mut ops = Vec::with_capacity(graph.node.len());
    let mut op_ids: HashSet<String> = HashSet::with_capacity(graph.node.len());
    for (i, n) in graph.node.iter().enumerate() {
        let op_type = n.op_type.as_deref().unwrap_or("");
        let kind = match n.domain.as_deref() {
            None | Some("") | Some("ai.onnx") => op_type.to_string(),
            Some(d) => format!("{d}.{op_type}"),
        };
        let mut id = match n.name.as_deref() {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => format!("{}_{i}", if op_type.is_empty() { "node" } else { op_type }),
        };
        if op_ids.contains(&id) {
            id = format!("{id}#{i}");
        }
        op_ids.insert(id.clone());

        let mut inputs: Vec<String> = Vec::with_capacity(n.input.len());
        for x in n.input.iter().filter(|x| !x.is_empty()) {
            if !declared.contains(x.as_str()) {
                return Err(format!(
                    "node {id:?} reads tensor {}, which no node produces and which is neither a graph input nor an initializer",
                    show(x)
                ));
            }
            inputs.push(x.clone());
        }
        let mut meta = Map::new();
        let subgraphs: Vec<&GraphProto> = n
            .attribute
            .iter()
            .flat_map(|a| a.g.iter().chain(a.graphs.iter()))
            .collect();
        if !subgraphs.is_empty() {
            let (outer, inner_nodes) = outer_scope_reads(&subgraphs);
            let mut extra = Vec::new();
            for x in outer {
                if declared.contains(x) && !inputs.iter().any(|y| y == x) {
                    inputs.push(x.to_string());
                    extra.push(Value::from(x));
                }
            }
            meta.insert(
                "note".into(),
                Value::from(format!(
                    "{kind} has {} subgraph(s) with {inner_nodes} node(s) in all; it is planned as one op: \
                     memory used inside its bodies is not modelled, and values its bodies read from the \
                     outer graph are listed as its inputs",
                    subgraphs.len()
                )),
            );
            meta.insert("subgraph_nodes".into(), Value::from(inner_nodes));
            if !extra.is_empty() {
                meta.insert("outer_scope_inputs".into(), Value::Array(extra));
            }
        }
        if n.name.as_deref().is_some_and(|s| !s.is_empty() && s != id) {
            meta.insert("onnx_name".into(), Value::from(n.name.clone()));
        }
        let attrs = simple_attrs(&n.attribute);
        ops.push(OpSpec {
            id,
            kind: Some(kind),
            inputs,
            outputs: n.output.iter().filter(|o| !o.is_empty()).cloned().collect(),
            attrs: (!attrs.is_empty()).then_some(attrs),
            meta: (!meta.is_empty()).then_some(meta),
            ..OpSpec::default()
        });
    }

    // Tensor sizes; problems are gathered so the message can list every symbolic dimension.
    let mut tensors = Vec::with_capacity(names.len());
    let mut first_problem: Option<String> = None;
    let mut symbolic: BTreeSet<String> = BTreeSet::new();
    let mut unknown = 0usize;
    let mut used_assumptions: BTreeSet<&str> = BTreeSet::new();
    let mut unsized_unused = 0usize;
    let consumed: HashSet<&str> = ops
        .iter()
        .flat_map(|o| o.inputs.iter().map(|s| s.as_str()))
        .chain(graph.output.iter().filter_map(|v| v.name.as_deref()))
        .collect();
    for &name in &names {
        let whose = match producer.get(name) {
            Some(&i) => format!(" (output of node {})", show(&ops[i].id)),
            None if is_initializer.contains(name) => " (an initializer)".into(),
            None => " (a graph input)".into(),
        };
        let mut spec = TensorSpec {
            id: name.to_string(),
            ..TensorSpec::default()
        };
        match info.get(name) {
            None | Some(Info::Tensor { dims: None, .. })
                if producer.contains_key(name) && !consumed.contains(name) =>
            {
                // An optional output nobody reads (Dropout's mask in inference graphs): runtimes
                // skip it and shape inference often leaves it untyped. Counting it as 0 bytes keeps
                // such models importable; the note says so.
                spec.bytes = Some(0);
                spec.meta = Some(obj(json!({
                    "note": "unused output without a shape in the model; counted as 0 bytes"
                })));
                unsized_unused += 1;
            }
            None | Some(Info::Tensor { dims: None, .. }) => {
                unknown += 1;
                first_problem.get_or_insert_with(|| {
                    format!("tensor {}{whose} has no known shape", show(name))
                });
                continue;
            }
            Some(Info::NotTensor(what)) => {
                return Err(format!(
                "tensor {}{whose} is {what}, not a tensor; its size cannot be known from the model",
                show(name)
            ))
            }
            Some(Info::Bytes(b)) => {
                spec.bytes = Some(*b);
                spec.meta = Some(obj(json!({"onnx": "sparse initializer"})));
            }
            Some(Info::Tensor {
                elem_type,
                dims: Some(dims),
            }) => {
                let e =
                    elem(*elem_type).map_err(|e| format!("tensor {}{whose} {e}", show(name)))?;
                let mut shape = Vec::with_capacity(dims.len());
                let mut ok = true;
                for (axis, d) in dims.iter().enumerate() {
                    match d {
                        Dim::Known(v) if *v >= 0 => shape.push(*v),
                        Dim::Known(v) => {
                            return Err(format!(
                                "tensor {}{whose} has a negative dimension {v} (axis {axis})",
                                show(name)
                            ))
                        }
                        Dim::Symbolic(p) => match opts.assume_dims.get(p) {
                            Some(&v) => {
                                used_assumptions.insert(p);
                                shape.push(v as i64);
                            }
                            None => {
                                ok = false;
                                symbolic.insert(p.clone());
                                first_problem.get_or_insert_with(|| {
                                    format!(
                                        "tensor {}{whose} has symbolic dimension {} (axis {axis} of {}); \
                                         give it a value with --assume-dim {p}=VALUE (or fix it in the model \
                                         and run onnx.shape_inference.infer_shapes)",
                                        show(name),
                                        show(p),
                                        dims_text(dims)
                                    )
                                });
                            }
                        },
                        Dim::Unknown => {
                            ok = false;
                            unknown += 1;
                            first_problem.get_or_insert_with(|| {
                                format!(
                                    "tensor {}{whose} has an unknown dimension (axis {axis} of {})",
                                    show(name),
                                    dims_text(dims)
                                )
                            });
                        }
                    }
                }
                if !ok {
                    continue;
                }
                let shape: Vec<u64> = shape.into_iter().map(|v| v as u64).collect();
                match e {
                    Elem::Named(d) => {
                        spec.shape = Some(shape);
                        spec.dtype = Some(d.to_string());
                    }
                    Elem::Bits(bits, onnx_name) => {
                        let dims: Vec<i64> = shape.iter().map(|&v| v as i64).collect();
                        let (b, _) = bytes_of(name, &Elem::Bits(bits, onnx_name), &dims)?;
                        spec.bytes = Some(b);
                        spec.meta = Some(obj(json!({"shape": shape, "onnx_dtype": onnx_name})));
                    }
                }
            }
        }
        tensors.push(spec);
    }
    if let Some(first) = first_problem {
        let mut msg = first;
        if symbolic.len() > 1 || (!symbolic.is_empty() && unknown > 0) {
            let list: Vec<&str> = symbolic.iter().map(|s| s.as_str()).collect();
            msg.push_str(&format!(
                "\nsymbolic dimensions without a value: {} (pass --assume-dim NAME=VALUE for each, \
                 or fix them in the model with onnx.tools.update_model_dims and run \
                 onnx.shape_inference.infer_shapes)",
                list.join(", ")
            ));
        }
        if unknown > 0 {
            msg.push_str(&format!(
                "\n{unknown} tensor(s) have no complete shape in the model; run ONNX shape inference first:\n  \
                 python -c \"import onnx, sys; m = onnx.load(sys.argv[1]); \
                 onnx.save(onnx.shape_inference.infer_shapes(m, strict_mode=True), sys.argv[2])\" MODEL.onnx MODEL-shaped.onnx"
            ));
        }
        return Err(msg);
    }

    let mut outputs = Vec::with_capacity(graph.output.len());
    for v in &graph.output {
        let n = v.name.as_deref().unwrap_or("");
        if !declared.contains(n) {
            return Err(format!(
                "graph output {} is neither produced by a node nor a graph input",
                show(n)
            ));
        }
        outputs.push(n.to_string());
    }

    let mut meta = Map::new();
    meta.insert("source".into(), Value::from("onnx"));
    if let Some(p) = model.producer_name.as_deref().filter(|s| !s.is_empty()) {
        let v = model.producer_version.as_deref().unwrap_or("");
        meta.insert(
            "producer".into(),
            Value::from(format!("{p} {v}").trim().to_string()),
        );
    }
    if let Some(v) = model.ir_version {
        meta.insert("ir_version".into(), Value::from(v));
    }
    let opsets: Map<String, Value> = model
        .opset_import
        .iter()
        .map(|o| {
            let d = o.domain.clone().unwrap_or_default();
            (
                if d.is_empty() { "ai.onnx".into() } else { d },
                Value::from(o.version.unwrap_or(0)),
            )
        })
        .collect();
    if !opsets.is_empty() {
        meta.insert("opset_import".into(), Value::Object(opsets));
    }
    if let Some(n) = graph.name.as_deref().filter(|s| !s.is_empty()) {
        meta.insert("name".into(), Value::from(n));
    }
    if !used_assumptions.is_empty() {
        let a: Map<String, Value> = used_assumptions
            .iter()
            .map(|&k| (k.to_string(), Value::from(opts.assume_dims[k])))
            .collect();
        meta.insert("assumed_dims".into(), Value::Object(a));
    }
    if unsized_unused > 0 {
        meta.insert("unsized_unused_outputs".into(), Value::from(unsized_unused));
    }
    let n_init = is_initializer.len();
    meta.insert("initializers".into(), Value::from(n_init));

    Ok(GraphSpec {
        format: Some(FORMAT.to_string()),
        tensors,
        ops,
        outputs,
        meta: Some(meta),
    })
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn node_label(g: &GraphProto, i: usize) -> String {
    let n = &g.node[i];
    match n.name.as_deref() {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => format!("{}_{i}", n.op_type.as_deref().unwrap_or("node")),
    }
}

fn dims_text(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|d| match d {
            Dim::Known(v) => v.to_string(),
            Dim::Symbolic(p) => p.clone(),
            Dim::Unknown => "?".into(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Bytes of a tensor of element `e` and shape `dims`, checked for overflow and negative dims.
fn bytes_of(name: &str, e: &Elem, dims: &[i64]) -> Result<(u64, u64), String> {
    let too_large = || {
        format!(
            "tensor {} is too large (its size overflows 64 bits)",
            show(name)
        )
    };
    let mut n: u64 = 1;
    for &d in dims {
        let d = u64::try_from(d)
            .map_err(|_| format!("tensor {} has a negative dimension {d}", show(name)))?;
        n = n.checked_mul(d).ok_or_else(too_large)?;
    }
    let bits = match e {
        Elem::Named(d) => 8 * peakorder::dtype::Dtype::parse(d).map_or(1, |x| x.size()),
        Elem::Bits(b, _) => *b,
    };
    let total_bits = n.checked_mul(bits).ok_or_else(too_large)?;
    Ok((total_bits.div_ceil(8), n))
}

/// Names that nodes inside `subgraphs` (at any depth) read but that no subgraph defines: the
/// outer-scope values the op needs. Walks with an explicit stack: bodies nest arbitrarily deep.
fn outer_scope_reads<'a>(subgraphs: &[&'a GraphProto]) -> (Vec<&'a str>, usize) {
    let mut defined: HashSet<&str> = HashSet::new();
    let mut read: Vec<&str> = Vec::new();
    let mut nodes = 0usize;
    let mut stack: Vec<&GraphProto> = subgraphs.to_vec();
    while let Some(g) = stack.pop() {
        for v in &g.input {
            defined.insert(v.name.as_deref().unwrap_or(""));
        }
        for t in &g.initializer {
            defined.insert(t.name.as_deref().unwrap_or(""));
        }
        for n in &g.node {
            nodes += 1;
            for o in &n.output {
                defined.insert(o);
            }
            read.extend(n.input.iter().map(|s| s.as_str()));
            for a in &n.attribute {
                stack.extend(a.g.iter());
                stack.extend(a.graphs.iter());
            }
        }
        // A body's outputs may name outer values directly.
        read.extend(g.output.iter().filter_map(|v| v.name.as_deref()));
    }
    let mut seen = HashSet::new();
    let outer = read
        .into_iter()
        .filter(|s| !s.is_empty() && !defined.contains(s) && seen.insert(*s))
        .collect();
    (outer, nodes)
}

/// Scalar and list attributes, for the page; tensors and graphs are left out.
fn simple_attrs(attrs: &[AttributeProto]) -> Map<String, Value> {
    let mut m = Map::new();
    for a in attrs {
        let Some(name) = a.name.as_deref() else {
            continue;
        };
        let v = match a.r#type {
            Some(1) => a.f.map(|f| json!(f)),
            Some(2) => a.i.map(|i| json!(i)),
            Some(3) => a.s.as_ref().map(|s| json!(String::from_utf8_lossy(s))),
            Some(6) => Some(json!(a.floats)),
            Some(7) => Some(json!(a.ints)),
            _ => None,
        };
        if let Some(v) = v {
            m.insert(name.to_string(), v);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::super::onnx_proto::*;
    use super::*;
    use peakorder::Graph;

    fn vi(name: &str, elem_type: i32, dims: &[Result<i64, &str>]) -> ValueInfoProto {
        ValueInfoProto {
            name: Some(name.into()),
            r#type: Some(TypeProto {
                value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                    elem_type: Some(elem_type),
                    shape: Some(TensorShapeProto {
                        dim: dims
                            .iter()
                            .map(|d| tensor_shape_proto::Dimension {
                                value: Some(match d {
                                    Ok(v) => dimension::Value::DimValue(*v),
                                    Err(p) => dimension::Value::DimParam(p.to_string()),
                                }),
                            })
                            .collect(),
                    }),
                })),
            }),
        }
    }

    fn node(name: &str, op: &str, ins: &[&str], outs: &[&str]) -> NodeProto {
        NodeProto {
            name: Some(name.into()),
            op_type: Some(op.into()),
            input: ins.iter().map(|s| s.to_string()).collect(),
            output: outs.iter().map(|s| s.to_string()).collect(),
            ..NodeProto::default()
        }
    }

    fn init(name: &str, elem_type: i32, dims: &[i64]) -> TensorProto {
        TensorProto {
            name: Some(name.into()),
            data_type: Some(elem_type),
            dims: dims.to_vec(),
        }
    }

    fn model(g: GraphProto) -> Vec<u8> {
        ModelProto {
            ir_version: Some(9),
            graph: Some(g),
            ..ModelProto::default()
        }
        .encode_to_vec()
    }

    fn mlp(batch: Result<i64, &str>) -> GraphProto {
        GraphProto {
            node: vec![
                node("mm1", "MatMul", &["x", "w1"], &["h"]),
                node("", "Relu", &["h"], &["r"]),
                node("mm2", "MatMul", &["r", "w2"], &["y"]),
            ],
            initializer: vec![init("w1", 1, &[16, 32]), init("w2", 1, &[32, 4])],
            input: vec![vi("x", 1, &[batch, Ok(16)])],
            output: vec![vi("y", 1, &[batch, Ok(4)])],
            value_info: vec![vi("h", 1, &[batch, Ok(32)]), vi("r", 1, &[batch, Ok(32)])],
            ..GraphProto::default()
        }
    }

    fn import_ok(bytes: &[u8], opts: &Options) -> (GraphSpec, Graph) {
        let spec = import(bytes, opts).unwrap();
        let g = Graph::from_spec(spec.clone()).unwrap();
        (spec, g)
    }

    #[test]
    fn mlp_sizes_and_pinned_initializers() {
        let (spec, g) = import_ok(&model(mlp(Ok(8))), &Options::default());
        let ids: Vec<&str> = spec.tensors.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["x", "w1", "w2", "h", "r", "y"]);
        let bytes: Vec<u64> = g.tensors().iter().map(|t| t.bytes).collect();
        assert_eq!(
            bytes,
            [
                8 * 16 * 4,
                16 * 32 * 4,
                32 * 4 * 4,
                8 * 32 * 4,
                8 * 32 * 4,
                8 * 4 * 4
            ]
        );
        assert_eq!(g.inputs_bytes(), (8 * 16 + 16 * 32 + 32 * 4) * 4);
        for name in ["w1", "w2", "x"] {
            let t = g.tensors().iter().position(|t| t.id == name).unwrap() as u32;
            assert!(g.pinned(t), "{name} must be pinned");
            assert!(g.tensors()[t as usize].producer.is_none());
        }
        assert_eq!(spec.ops[1].id, "Relu_1");
        assert_eq!(spec.outputs, ["y"]);
        let peak = peakorder::peak_of(&g, &[0, 1, 2]);
        // During mm2: inputs + h? no, h is freed after relu: inputs + r + y.
        assert_eq!(peak, g.inputs_bytes() + 8 * 32 * 4 * 2);
    }

    #[test]
    fn symbolic_dimension_is_named_and_can_be_assumed() {
        let bytes = model(mlp(Err("batch")));
        let e = import(&bytes, &Options::default()).unwrap_err();
        assert!(e.contains("\"x\""), "{e}");
        assert!(e.contains("symbolic dimension \"batch\""), "{e}");
        assert!(e.contains("--assume-dim batch=VALUE"), "{e}");
        let mut opts = Options::default();
        opts.assume_dims.insert("batch".into(), 3);
        let (spec, g) = import_ok(&bytes, &opts);
        assert_eq!(g.tensors()[0].bytes, 3 * 16 * 4);
        assert_eq!(spec.meta.unwrap()["assumed_dims"], json!({"batch": 3}));
    }

    #[test]
    fn every_symbolic_dimension_is_listed() {
        let mut g = mlp(Err("batch"));
        g.value_info[0] = vi("h", 1, &[Err("batch"), Err("hidden")]);
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(e.contains("batch, hidden"), "{e}");
    }

    #[test]
    fn missing_shape_suggests_shape_inference() {
        let mut g = mlp(Ok(8));
        g.value_info.remove(1);
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(
            e.contains("tensor \"r\" (output of node \"Relu_1\") has no known shape"),
            "{e}"
        );
        assert!(e.contains("onnx.shape_inference.infer_shapes"), "{e}");
    }

    #[test]
    fn unused_output_without_shape_counts_zero() {
        let mut g = mlp(Ok(8));
        g.node[1].output.push("mask".into());
        let (spec, gr) = import_ok(&model(g), &Options::default());
        let t = spec.tensors.iter().find(|t| t.id == "mask").unwrap();
        assert_eq!(t.bytes, Some(0));
        assert!(t.meta.as_ref().unwrap()["note"]
            .as_str()
            .unwrap()
            .contains("0 bytes"));
        assert_eq!(spec.meta.unwrap()["unsized_unused_outputs"], 1);
        assert_eq!(gr.tensors().len(), 7);
    }

    #[test]
    fn unknown_input_is_an_error() {
        let mut g = mlp(Ok(8));
        g.node[2].input[1] = "nope".into();
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(e.contains("\"nope\""), "{e}");
    }

    #[test]
    fn dtypes_not_in_design_are_sized_as_bytes() {
        let g = GraphProto {
            node: vec![
                node("c", "Cast", &["a"], &["b"]),
                node("q", "Cast", &["b"], &["c"]),
            ],
            input: vec![vi("a", 4, &[Ok(3), Ok(5)])],
            value_info: vec![vi("b", 22, &[Ok(3), Ok(5)])],
            output: vec![vi("c", 14, &[Ok(2)])],
            ..GraphProto::default()
        };
        let (spec, g) = import_ok(&model(g), &Options::default());
        let bytes: Vec<u64> = g.tensors().iter().map(|t| t.bytes).collect();
        // uint16: 2 bytes each; int4: 15 nibbles round up to 8 bytes; complex64: 8 bytes each.
        assert_eq!(bytes, [30, 8, 16]);
        assert_eq!(
            spec.tensors[0].meta.as_ref().unwrap()["onnx_dtype"],
            "uint16"
        );
        let s = GraphProto {
            node: vec![node("n", "Identity", &["a"], &["b"])],
            input: vec![vi("a", 8, &[Ok(3)])],
            output: vec![vi("b", 8, &[Ok(3)])],
            ..GraphProto::default()
        };
        let e = import(&model(s), &Options::default()).unwrap_err();
        assert!(e.contains("\"a\"") && e.contains("STRING"), "{e}");
    }

    #[test]
    fn constant_sizes_come_from_their_value() {
        let mut c = node("k", "Constant", &[], &["k0"]);
        c.attribute.push(AttributeProto {
            name: Some("value".into()),
            r#type: Some(4),
            t: Some(init("", 7, &[10])),
            ..AttributeProto::default()
        });
        let g = GraphProto {
            node: vec![c, node("add", "Add", &["x", "k0"], &["y"])],
            input: vec![vi("x", 7, &[Ok(10)])],
            output: vec![vi("y", 7, &[Ok(10)])],
            ..GraphProto::default()
        };
        let (_, g) = import_ok(&model(g), &Options::default());
        assert_eq!(g.tensors()[1].bytes, 80);
    }

    #[test]
    fn subgraph_op_reads_outer_values_and_says_so() {
        let body = GraphProto {
            node: vec![node("inner", "Add", &["big", "x"], &["o"])],
            output: vec![vi("o", 1, &[Ok(4)])],
            ..GraphProto::default()
        };
        let mut iff = node("if", "If", &["cond"], &["y"]);
        iff.attribute.push(AttributeProto {
            name: Some("then_branch".into()),
            r#type: Some(5),
            g: Some(body.clone()),
            ..AttributeProto::default()
        });
        iff.attribute.push(AttributeProto {
            name: Some("else_branch".into()),
            r#type: Some(5),
            g: Some(body),
            ..AttributeProto::default()
        });
        let g = GraphProto {
            node: vec![node("mk", "Relu", &["x"], &["big"]), iff],
            input: vec![vi("x", 1, &[Ok(4)]), vi("cond", 9, &[])],
            output: vec![vi("y", 1, &[Ok(4)])],
            value_info: vec![vi("big", 1, &[Ok(1000)])],
            ..GraphProto::default()
        };
        let (spec, _) = import_ok(&model(g), &Options::default());
        let op = &spec.ops[1];
        assert_eq!(op.inputs, ["cond", "big", "x"]);
        let meta = op.meta.as_ref().unwrap();
        assert!(meta["note"].as_str().unwrap().contains("one op"));
        assert_eq!(meta["subgraph_nodes"], 2);
    }

    #[test]
    fn garbage_and_deep_nesting_are_errors_not_panics() {
        assert!(import(b"{\"format\": \"peakorder/1\"}", &Options::default()).is_err());
        assert!(import(&[0xff; 64], &Options::default()).is_err());
        assert!(import(&[], &Options::default()).is_err());
        let mut g = GraphProto::default();
        for _ in 0..200 {
            let mut n = node("loop", "Loop", &[], &[]);
            n.attribute.push(AttributeProto {
                g: Some(g),
                ..AttributeProto::default()
            });
            g = GraphProto {
                node: vec![n],
                ..GraphProto::default()
            };
        }
        let e = import(&model(g), &Options::default()).unwrap_err();
        assert!(e.contains("recursion"), "{e}");
    }
}
