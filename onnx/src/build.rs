//! Phase 4: the graph JSON (docs/design.md §2). Ops in the file's order (the program order),
//! tensors sized from what inference and the file know; every tensor without a size is gathered
//! into one error that names the first and says what would fix them all.

use std::collections::{BTreeSet, HashSet};

use peakorder::format::{GraphSpec, OpSpec, TensorSpec, FORMAT};
use serde_json::{json, Map, Value};

use super::decode::Decoded;
use super::dtype::{self, Elem};
use super::error::{Cause, Error, NoShape, Problem};
use super::infer::ty::{dims_text, Dim, Ty};
use super::infer::Inferred;
use super::proto::GraphProto;
use super::resolve::{Given, Resolved};
use super::{attrs, scope, subgraph, Options};

pub fn build(
    d: &Decoded,
    r: &Resolved,
    inf: &Inferred,
    opts: &Options,
) -> Result<GraphSpec, Error> {
    let graph = d.graph();
    let ops = ops(d, r);
    let consumed: HashSet<&str> = ops
        .iter()
        .flat_map(|o| o.inputs.iter().map(|s| s.as_str()))
        .chain(graph.output.iter().filter_map(|v| v.name.as_deref()))
        .collect();

    let mut tensors = Vec::with_capacity(r.names.len());
    let mut first: Option<NoShape> = None;
    let mut symbolic: BTreeSet<String> = BTreeSet::new();
    let mut unknown = 0usize;
    let mut blamed = 0usize;
    let mut unsized_unused = 0usize;
    let empty = Ty::default();
    for &name in &r.names {
        let whose = r.whose(name);
        let mut spec = TensorSpec {
            id: name.to_string(),
            ..TensorSpec::default()
        };
        let ty = inf.types.get(name).unwrap_or(&empty);
        let is_blamed = inf.blame.contains_key(name);
        let mut problem = |p: Problem, unknown_too: bool, unknown: &mut usize| {
            if unknown_too {
                *unknown += 1;
                blamed += is_blamed as usize;
            }
            if first.is_none() {
                let cause = inf.blame.get(name).and_then(|&b| {
                    Some(Cause {
                        node: d.op_ids[b].clone(),
                        op: graph.node[b].op_type.clone().unwrap_or_default(),
                        reason: inf.causes.get(&b)?.clone(),
                    })
                });
                first = Some(NoShape {
                    tensor: name.to_string(),
                    whose: whose.clone(),
                    problem: p,
                    cause,
                    symbolic: Vec::new(),
                    unknown: 0,
                    blamed: 0,
                    unread: Vec::new(),
                });
            }
        };
        match r.given.get(name) {
            Some(Given::NotTensor(what)) => {
                return Err(Error::NotATensor {
                    tensor: name.to_string(),
                    whose,
                    what,
                })
            }
            Some(Given::SparseBytes(b)) => {
                spec.bytes = Some(*b);
                spec.meta = Some(obj(json!({"onnx": "sparse initializer"})));
                tensors.push(spec);
                continue;
            }
            _ => {}
        }
        let Some(dims) = ty.shape.as_ref() else {
            if r.producer.contains_key(name) && !consumed.contains(name) {
                // An optional output nobody reads and whose shape nothing gives: runtimes skip
                // it. Counting it as 0 bytes keeps such models importable; the note says so.
                spec.bytes = Some(0);
                spec.meta = Some(obj(json!({
                    "note": "unused output without a known shape; counted as 0 bytes"
                })));
                unsized_unused += 1;
                tensors.push(spec);
            } else {
                problem(Problem::NoShape, true, &mut unknown);
            }
            continue;
        };
        let Some(elem_type) = ty.elem else {
            problem(Problem::NoShape, true, &mut unknown);
            continue;
        };
        let e = dtype::elem(elem_type).map_err(|reason| Error::ElemType {
            tensor: name.to_string(),
            whose: whose.clone(),
            reason,
        })?;
        let mut shape = Vec::with_capacity(dims.len());
        let mut complete = true;
        let mut counted = false;
        for (axis, dim) in dims.iter().enumerate() {
            match dim {
                Dim::Known(v) => shape.push(*v),
                Dim::Sym(p) => {
                    complete = false;
                    symbolic.insert(p.to_string());
                    problem(
                        Problem::Symbolic {
                            name: p.to_string(),
                            axis,
                            dims: dims_text(dims),
                        },
                        false,
                        &mut unknown,
                    );
                }
                Dim::Unknown => {
                    complete = false;
                    problem(
                        Problem::UnknownDim {
                            axis,
                            dims: dims_text(dims),
                        },
                        !counted,
                        &mut unknown,
                    );
                    counted = true;
                }
            }
        }
        if !complete {
            continue;
        }
        match e {
            Elem::Named(dt) => {
                spec.shape = Some(shape);
                spec.dtype = Some(dt.to_string());
            }
            Elem::Bits(bits, onnx_name) => {
                let total = shape
                    .iter()
                    .try_fold(bits, |a, &d| a.checked_mul(d))
                    .ok_or_else(|| Error::TooLarge {
                        tensor: name.to_string(),
                    })?;
                spec.bytes = Some(total.div_ceil(8));
                spec.meta = Some(obj(json!({"shape": shape, "onnx_dtype": onnx_name})));
            }
        }
        tensors.push(spec);
    }
    if let Some(mut f) = first {
        f.symbolic = symbolic.into_iter().collect();
        f.unknown = unknown;
        f.blamed = blamed;
        f.unread = r.unread.clone();
        return Err(f.into());
    }

    let outputs = graph
        .output
        .iter()
        .map(|v| v.name.clone().unwrap_or_default())
        .collect();
    Ok(GraphSpec {
        format: Some(FORMAT.to_string()),
        tensors,
        ops,
        outputs,
        meta: Some(graph_meta(d, r, opts, unsized_unused)),
    })
}

fn ops(d: &Decoded, r: &Resolved) -> Vec<OpSpec> {
    let graph = d.graph();
    let declared: HashSet<&str> = r.names.iter().copied().collect();
    let mut ops = Vec::with_capacity(graph.node.len());
    for (i, n) in graph.node.iter().enumerate() {
        let op_type = n.op_type.as_deref().unwrap_or("");
        let kind = match n.domain.as_deref() {
            None | Some("") | Some("ai.onnx") => op_type.to_string(),
            Some(dm) => format!("{dm}.{op_type}"),
        };
        let id = d.op_ids[i].clone();
        let mut inputs: Vec<String> = n.input.iter().filter(|x| !x.is_empty()).cloned().collect();
        let mut meta = Map::new();
        let subgraphs: Vec<&GraphProto> = n
            .attribute
            .iter()
            .flat_map(|a| a.g.iter().chain(a.graphs.iter()))
            .collect();
        if !subgraphs.is_empty() {
            let (outer, inner_nodes) = subgraph::outer_scope_reads(&subgraphs);
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
                    "{kind} has {} subgraph(s) with {inner_nodes} node(s) in all; it is planned as \
                     one op: memory used inside its bodies is not modelled, and values its bodies \
                     read from the outer graph are listed as its inputs",
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
        if let Some(s) = scope::scope(n) {
            meta.insert("scope".into(), Value::from(s));
        }
        let attrs = attrs::simple_attrs(&n.attribute);
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
    ops
}

fn graph_meta(
    d: &Decoded,
    r: &Resolved,
    opts: &Options,
    unsized_unused: usize,
) -> Map<String, Value> {
    let model = &d.model;
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
            let dm = o.domain.clone().unwrap_or_default();
            (
                if dm.is_empty() { "ai.onnx".into() } else { dm },
                Value::from(o.version.unwrap_or(0)),
            )
        })
        .collect();
    if !opsets.is_empty() {
        meta.insert("opset_import".into(), Value::Object(opsets));
    }
    if let Some(n) = d.graph().name.as_deref().filter(|s| !s.is_empty()) {
        meta.insert("name".into(), Value::from(n));
    }
    if !r.used_assumptions.is_empty() {
        let a: Map<String, Value> = r
            .used_assumptions
            .iter()
            .map(|k| (k.clone(), Value::from(opts.assume_dims[k])))
            .collect();
        meta.insert("assumed_dims".into(), Value::Object(a));
    }
    if unsized_unused > 0 {
        meta.insert("unsized_unused_outputs".into(), Value::from(unsized_unused));
    }
    meta.insert("initializers".into(), Value::from(r.initializers.len()));
    meta
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}
