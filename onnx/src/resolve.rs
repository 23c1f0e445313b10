//! Phase 2: names and what the file says about them. Every value the graph names gets a place in
//! the tensor order (graph inputs, initializers, node outputs); the model's own type information
//! (graph inputs and outputs, `value_info`, initializers, `Constant` values) is collected with
//! `--assume-dim` values applied, and small initializers and constants are read for folding.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use super::decode::Decoded;
use super::dtype;
use super::error::{Error, Unread, Whose};
use super::infer::ty::{Dim, Num, Ty, FOLD_BUDGET, FOLD_LIMIT};
use super::options::{ExternalData, Options};
use super::proto::{
    tensor_shape_proto::dimension, type_proto, AttributeProto, NodeProto, TensorProto, TypeProto,
};
use super::tensor_data::{self, Read};

/// What the file says about a value's type.
#[derive(Clone, Debug)]
pub enum Given {
    Tensor(Ty),
    /// A sparse initializer: its bytes (values + indices) are known directly.
    SparseBytes(u64),
    /// Sequence, map, optional, opaque, sparse (as a value type).
    NotTensor(&'static str),
}

pub struct Resolved<'a> {
    /// The nodes' op ids (`Decoded::op_ids`).
    pub ids: &'a [String],
    /// Every tensor, in the graph's order: graph inputs, initializers, then node outputs.
    pub names: Vec<&'a str>,
    pub producer: HashMap<&'a str, usize>,
    pub initializers: HashSet<&'a str>,
    /// The file's type information, best first (a full shape beats a partial one).
    pub given: HashMap<&'a str, Given>,
    /// Graph inputs and initializers, with the values of small initializers.
    pub sources: HashMap<&'a str, Ty>,
    /// The `--assume-dim` names some shape in the file used.
    pub used_assumptions: BTreeSet<String>,
    /// How many more elements folding may hold (`infer::ty::FOLD_BUDGET` less the initializers').
    pub fold_budget: usize,
    /// Small external initializers whose elements are unknown.
    pub unread: Vec<Unread>,
}

impl Resolved<'_> {
    pub fn whose(&self, name: &str) -> Whose {
        match self.producer.get(name) {
            Some(&i) => Whose::Node(self.ids[i].clone()),
            None if self.initializers.contains(name) => Whose::Initializer,
            None => Whose::GraphInput,
        }
    }
}

pub fn resolve<'a>(d: &'a Decoded, opts: &Options) -> Result<Resolved<'a>, Error> {
    let assume: &BTreeMap<String, u64> = &opts.assume_dims;
    let ext: Option<&dyn ExternalData> = opts.external_data;
    let graph = d.graph();
    let ids = &d.op_ids;
    let mut names: Vec<&str> = Vec::new();
    let mut declared: HashSet<&str> = HashSet::new();
    let mut initializers: HashSet<&str> = HashSet::new();
    for v in &graph.input {
        let n = v.name.as_deref().unwrap_or("");
        if !n.is_empty() && declared.insert(n) {
            names.push(n);
        }
    }
    let sparse_name = |s: &'a super::proto::SparseTensorProto| {
        s.values
            .as_ref()
            .and_then(|v| v.name.as_deref())
            .unwrap_or("")
    };
    let init_names = graph
        .initializer
        .iter()
        .map(|t| t.name.as_deref().unwrap_or(""))
        .chain(graph.sparse_initializer.iter().map(sparse_name));
    for (index, n) in init_names.enumerate() {
        if n.is_empty() {
            return Err(Error::UnnamedInitializer { index });
        }
        initializers.insert(n);
        if declared.insert(n) {
            names.push(n);
        }
    }
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (i, n) in graph.node.iter().enumerate() {
        for o in n.output.iter().filter(|o| !o.is_empty()) {
            if let Some(&j) = producer.get(o.as_str()) {
                return Err(Error::ProducedTwice {
                    tensor: o.clone(),
                    first: ids[j].clone(),
                    second: ids[i].clone(),
                });
            }
            if initializers.contains(o.as_str()) {
                return Err(Error::InitializerProduced {
                    tensor: o.clone(),
                    node: ids[i].clone(),
                });
            }
            producer.insert(o, i);
            if declared.insert(o) {
                names.push(o);
            }
        }
    }
    for (i, n) in graph.node.iter().enumerate() {
        if let Some(x) = n
            .input
            .iter()
            .find(|x| !x.is_empty() && !declared.contains(x.as_str()))
        {
            return Err(Error::UnknownInput {
                node: ids[i].clone(),
                tensor: x.clone(),
            });
        }
    }
    for v in &graph.output {
        let n = v.name.as_deref().unwrap_or("");
        if !declared.contains(n) {
            return Err(Error::UnknownOutput {
                tensor: n.to_string(),
            });
        }
    }

    let mut r = Resolved {
        ids,
        names,
        producer,
        initializers,
        given: HashMap::new(),
        sources: HashMap::new(),
        used_assumptions: BTreeSet::new(),
        fold_budget: FOLD_BUDGET,
        unread: Vec::new(),
    };

    // The file's type information.
    let mut given: HashMap<&str, Given> = HashMap::new();
    for t in &graph.initializer {
        let name = t.name.as_deref().unwrap_or("");
        let ty = tensor_ty(t, name, &Whose::Initializer)?;
        add(&mut given, name, Given::Tensor(ty));
    }
    for s in &graph.sparse_initializer {
        let name = sparse_name(s);
        let part = |t: &Option<TensorProto>| -> Result<u64, Error> {
            let Some(t) = t else { return Ok(0) };
            let e = dtype::elem(t.data_type.unwrap_or(0)).map_err(|reason| Error::ElemType {
                tensor: name.to_string(),
                whose: Whose::Initializer,
                reason: format!("(sparse initializer) {reason}"),
            })?;
            bytes_of(name, &e, &t.dims, &Whose::Initializer)
        };
        let total = part(&s.values)?
            .checked_add(part(&s.indices)?)
            .ok_or_else(|| Error::TooLarge {
                tensor: name.to_string(),
            })?;
        add(&mut given, name, Given::SparseBytes(total));
    }
    for v in graph
        .input
        .iter()
        .chain(&graph.output)
        .chain(&graph.value_info)
    {
        let Some(name) = v.name.as_deref() else {
            continue;
        };
        if !declared.contains(name) {
            continue;
        }
        if let Some(t) = v.r#type.as_ref() {
            if let Some(g) = given_of_type(t, name, &r.whose(name), assume, &mut r)? {
                add(&mut given, name, g);
            }
        }
    }

    // Graph inputs and initializers: the values inference starts from.
    for v in &graph.input {
        let n = v.name.as_deref().unwrap_or("");
        if let Some(Given::Tensor(ty)) = given.get(n) {
            r.sources.insert(n, ty.clone());
        }
    }
    for t in &graph.initializer {
        let name = t.name.as_deref().unwrap_or("");
        let mut ty = tensor_ty(t, name, &Whose::Initializer)?;
        match tensor_data::read(t, FOLD_LIMIT.min(r.fold_budget), ext) {
            Read::Elements(v) => {
                r.fold_budget -= v.len();
                ty = ty.with_value(v);
            }
            Read::Nothing => {}
            Read::Unread { location, why } => r.unread.push(Unread {
                tensor: name.to_string(),
                location,
                why,
            }),
        }
        r.sources.insert(name, ty);
    }
    for s in &graph.sparse_initializer {
        if let Some(v) = &s.values {
            let shape = s.dims.iter().map(|&d| dim_of(d)).collect();
            r.sources.insert(
                sparse_name(s),
                Ty::new(v.data_type.filter(|&t| t != 0), shape),
            );
        }
    }
    r.given = given;
    Ok(r)
}

/// Keeps the better of two descriptions of one value.
fn add<'a>(given: &mut HashMap<&'a str, Given>, name: &'a str, g: Given) {
    fn rank(g: &Given) -> u8 {
        match g {
            Given::Tensor(t) if t.known_dims().is_some() => 3,
            Given::Tensor(Ty { shape: Some(_), .. }) | Given::SparseBytes(_) => 2,
            Given::Tensor(_) => 1,
            Given::NotTensor(_) => 0,
        }
    }
    match given.get(name) {
        Some(old) if rank(old) >= rank(&g) => {}
        _ => {
            given.insert(name, g);
        }
    }
}

fn dim_of(d: i64) -> Dim {
    u64::try_from(d).map_or(Dim::Unknown, Dim::Known)
}

/// An initializer's (or a constant's) type from its header; negative dims are errors.
pub fn tensor_ty(t: &TensorProto, name: &str, whose: &Whose) -> Result<Ty, Error> {
    let mut shape = Vec::with_capacity(t.dims.len());
    for (axis, &d) in t.dims.iter().enumerate() {
        if d < 0 {
            return Err(Error::NegativeDim {
                tensor: name.to_string(),
                whose: whose.clone(),
                dim: d,
                axis,
            });
        }
        shape.push(Dim::Known(d as u64));
    }
    Ok(Ty::new(t.data_type.filter(|&e| e != 0), shape))
}

fn given_of_type(
    t: &TypeProto,
    name: &str,
    whose: &Whose,
    assume: &BTreeMap<String, u64>,
    r: &mut Resolved,
) -> Result<Option<Given>, Error> {
    use type_proto::Value as V;
    let Some(v) = t.value.as_ref() else {
        return Ok(None);
    };
    Ok(Some(match v {
        V::TensorType(tt) => {
            let shape = match &tt.shape {
                None => None,
                Some(s) => {
                    let mut dims = Vec::with_capacity(s.dim.len());
                    for (axis, d) in s.dim.iter().enumerate() {
                        dims.push(match &d.value {
                            Some(dimension::Value::DimValue(v)) if *v < 0 => {
                                return Err(Error::NegativeDim {
                                    tensor: name.to_string(),
                                    whose: whose.clone(),
                                    dim: *v,
                                    axis,
                                })
                            }
                            Some(dimension::Value::DimValue(v)) => Dim::Known(*v as u64),
                            Some(dimension::Value::DimParam(p)) if !p.is_empty() => {
                                match assume.get(p) {
                                    Some(&v) => {
                                        r.used_assumptions.insert(p.clone());
                                        Dim::Known(v)
                                    }
                                    None => Dim::Sym(Rc::from(p.as_str())),
                                }
                            }
                            _ => Dim::Unknown,
                        });
                    }
                    Some(dims)
                }
            };
            Given::Tensor(Ty {
                elem: tt.elem_type.filter(|&e| e != 0),
                shape,
                value: None,
            })
        }
        V::SequenceType(_) => Given::NotTensor("a sequence"),
        V::MapType(_) => Given::NotTensor("a map"),
        V::OpaqueType(_) => Given::NotTensor("an opaque value"),
        V::SparseTensorType(_) => Given::NotTensor("a sparse tensor"),
        V::OptionalType(_) => Given::NotTensor("an optional"),
    }))
}

/// Bytes of a tensor of element `e` and shape `dims`, checked for overflow and negative dims.
pub fn bytes_of(name: &str, e: &dtype::Elem, dims: &[i64], whose: &Whose) -> Result<u64, Error> {
    let too_large = || Error::TooLarge {
        tensor: name.to_string(),
    };
    let mut n: u64 = 1;
    for (axis, &d) in dims.iter().enumerate() {
        let d = u64::try_from(d).map_err(|_| Error::NegativeDim {
            tensor: name.to_string(),
            whose: whose.clone(),
            dim: d,
            axis,
        })?;
        n = n.checked_mul(d).ok_or_else(too_large)?;
    }
    let total_bits = n.checked_mul(e.bits()).ok_or_else(too_large)?;
    Ok(total_bits.div_ceil(8))
}

/// A `Constant` node's value: its type, and its elements when small. `None` when the node has
/// no value attribute we know.
pub fn constant(n: &NodeProto, name: &str, whose: &Whose) -> Result<Option<Ty>, Error> {
    let attr = |k: &str| -> Option<&AttributeProto> {
        n.attribute.iter().find(|a| a.name.as_deref() == Some(k))
    };
    if let Some(t) = attr("value").and_then(|a| a.t.as_ref()) {
        let mut ty = tensor_ty(t, name, whose)?;
        if let Some(v) = tensor_data::elements(t, FOLD_LIMIT) {
            ty = ty.with_value(v);
        }
        return Ok(Some(ty));
    }
    if let Some(s) = attr("sparse_value").and_then(|a| a.sparse_tensor.as_ref()) {
        let shape = s.dims.iter().map(|&d| dim_of(d)).collect();
        let elem = s
            .values
            .as_ref()
            .and_then(|v| v.data_type)
            .filter(|&e| e != 0);
        return Ok(Some(Ty::new(elem, shape)));
    }
    if let Some(a) = attr("value_int") {
        return Ok(Some(
            Ty::known(dtype::INT64, &[]).with_value(vec![Num::Int(a.i.unwrap_or(0))]),
        ));
    }
    if let Some(a) = attr("value_ints") {
        let v: Vec<Num> = a.ints.iter().map(|&i| Num::Int(i)).collect();
        return Ok(Some(
            Ty::known(dtype::INT64, &[v.len() as u64]).with_value(v),
        ));
    }
    if let Some(a) = attr("value_float") {
        return Ok(Some(
            Ty::known(dtype::FLOAT, &[]).with_value(vec![Num::Float(a.f.unwrap_or(0.0) as f64)]),
        ));
    }
    if let Some(a) = attr("value_floats") {
        let v: Vec<Num> = a.floats.iter().map(|&f| Num::Float(f as f64)).collect();
        return Ok(Some(
            Ty::known(dtype::FLOAT, &[v.len() as u64]).with_value(v),
        ));
    }
    if attr("value_string").is_some() {
        return Ok(Some(Ty::known(dtype::STRING, &[])));
    }
    if let Some(a) = attr("value_strings") {
        return Ok(Some(Ty::known(dtype::STRING, &[a.strings.len() as u64])));
    }
    Ok(None)
}
