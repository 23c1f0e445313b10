//! Test helpers shared by the core's integration tests: fixture loading, and the random graphs
//! of the property tests as proptest strategies.
//!
//! Every strategy draws a family, an op count and a tape of choices, and builds the graph with
//! the generators of `peakorder::generators` reading that tape ([`Tape`]). Proptest shrinks the
//! op count and the choices towards 0, and a choice of 0 is always the simplest one, so a
//! failure is reported as a small graph (printed as its JSON), not as a seed. The one referee
//! for "least peak over every order" is `peakorder::referee`.
#![allow(dead_code)]

use std::fmt;
use std::ops::RangeInclusive;
use std::path::PathBuf;

use peakorder::format::GraphSpec;
use peakorder::generators::small::Family;
use peakorder::generators::{random_layered_from, random_sp_from, Tape};
use peakorder::Graph;
use proptest::prelude::*;

/// `tests/cases` at the repository root.
pub fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cases")
}

/// The `*.json` files of `dir` (a path under `tests/cases`) that are UTF-8 text: (file name,
/// text), sorted. Panics when the directory is missing: a fixture directory that moved must not
/// turn its tests into no-ops.
pub fn json_files(dir: &str) -> Vec<(String, String)> {
    let path = cases_dir().join(dir);
    let entries =
        std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{} must exist: {e}", path.display()));
    let mut out: Vec<(String, String)> = entries
        .map(|e| e.expect("readable directory").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = String::from_utf8(std::fs::read(&p).unwrap()).ok()?;
            Some((name, text))
        })
        .collect();
    out.sort();
    out
}

/// Every valid fixture at the top of `tests/cases`: (file name, JSON text).
pub fn valid_cases() -> Vec<(String, String)> {
    json_files("")
}

/// The fixture's `meta.expect.<key>` value.
pub fn expect(g: &Graph, key: &str) -> Option<u64> {
    g.meta()?.get("expect")?.get(key)?.as_u64()
}

/// A generated graph: its spec and the validated graph.
#[derive(Clone)]
pub struct Case {
    /// The generator that made it.
    pub family: &'static str,
    pub spec: GraphSpec,
    pub graph: Graph,
}

impl Case {
    /// Validates `spec`; a generator that makes an invalid graph is a bug in the generator.
    pub fn new(family: &'static str, spec: GraphSpec) -> Case {
        let graph = Graph::from_spec(spec.clone()).unwrap_or_else(|e| {
            panic!(
                "the {family} generator made an invalid graph: {e}\n{}",
                spec.to_json()
            )
        });
        Case {
            family,
            spec,
            graph,
        }
    }

    /// The spec (for tests written against the older `RandomGraph::build`).
    pub fn build(&self) -> GraphSpec {
        self.spec.clone()
    }
}

/// What proptest prints for a failing case: the family and the whole graph.
impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{} graph, {} ops: {}",
            self.family,
            self.graph.num_ops(),
            self.spec.to_json()
        )
    }
}

/// Enough draws for every choice a family makes on `max_ops` ops (about 20 per op); past the
/// end a tape reads 0s.
fn tape(max_ops: usize) -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(any::<u16>(), 32 + 32 * max_ops)
}

/// Graphs of one of `families`, with an op count in `ops` (families other than `general` make at
/// least one op).
pub fn graphs(families: &'static [Family], ops: RangeInclusive<usize>) -> BoxedStrategy<Case> {
    let max = *ops.end();
    (prop::sample::select(families), ops, tape(max))
        .prop_map(|(family, n, draws)| {
            Case::new(family.name(), family.build(&mut Tape::new(&draws), n))
        })
        .boxed()
}

/// Graphs of one family.
pub fn graph(family: Family, ops: RangeInclusive<usize>) -> BoxedStrategy<Case> {
    let max = *ops.end();
    (ops, tape(max))
        .prop_map(move |(n, draws)| {
            Case::new(family.name(), family.build(&mut Tape::new(&draws), n))
        })
        .boxed()
}

/// Half `general` graphs (the whole memory model, non-topological program orders), half any
/// family (the shapes).
pub fn any_graph(ops: RangeInclusive<usize>) -> BoxedStrategy<Case> {
    prop_oneof![
        graph(Family::General, ops.clone()),
        graphs(Family::ALL, ops)
    ]
    .boxed()
}

/// Any family with up to `max_ops` ops (the name the first tests used).
pub fn random_graph(max_ops: usize) -> BoxedStrategy<Case> {
    any_graph(0..=max_ops)
}

/// `peakorder::generators::random_layered` graphs (sizes over 64×, several inputs).
pub fn layered_net(
    layers: RangeInclusive<usize>,
    width: RangeInclusive<usize>,
) -> BoxedStrategy<Case> {
    let max = *layers.end() * *width.end();
    (layers, width, tape(max))
        .prop_map(|(l, w, draws)| {
            Case::new(
                "random_layered",
                random_layered_from(&mut Tape::new(&draws), l, w),
            )
        })
        .boxed()
}

/// `peakorder::generators::random_sp` graphs (series-parallel by construction).
pub fn sp_net(ops: RangeInclusive<usize>) -> BoxedStrategy<Case> {
    let max = *ops.end();
    (ops, tape(max))
        .prop_map(|(n, draws)| Case::new("random_sp", random_sp_from(&mut Tape::new(&draws), n)))
        .boxed()
}

/// A random valid order of `g` (a seeded topological sort).
pub fn random_order(g: &Graph, seed: u64) -> Vec<peakorder::OpIx> {
    let mut rng = peakorder::generators::Rng::new(seed);
    topo_order_by(g, |ready| rng.range(0, ready as u64 - 1) as usize)
}

/// A topological order of `g` that runs, at each step, the ready op `pick(#ready)` (taken
/// modulo the number ready).
pub fn topo_order_by(g: &Graph, mut pick: impl FnMut(usize) -> usize) -> Vec<peakorder::OpIx> {
    let mut missing: Vec<usize> = (0..g.num_ops() as u32).map(|v| g.preds(v).len()).collect();
    let mut ready: Vec<u32> = (0..g.num_ops() as u32)
        .filter(|&v| missing[v as usize] == 0)
        .collect();
    let mut order = Vec::new();
    while !ready.is_empty() {
        let k = pick(ready.len()) % ready.len();
        let v = ready.swap_remove(k);
        order.push(v);
        for &w in g.succs(v) {
            missing[w as usize] -= 1;
            if missing[w as usize] == 0 {
                ready.push(w);
            }
        }
    }
    order
}

/// One of the small generators' graphs (`kind` picks the family), from a seed: for the
/// property tests that draw seeds rather than tapes.
pub fn seeded_graph(kind: u8, seed: u64, n: usize) -> Graph {
    use peakorder::generators::small::{
        dag, fork_join, in_forest, pieces, series_parallel, sp_pinned_outputs, uniform_dag,
        wide_layered,
    };
    let mut r = peakorder::generators::Rng::new(seed);
    let spec = match kind % 8 {
        0 => dag(&mut r, n),
        1 => series_parallel(&mut r, n),
        2 => pieces(&mut r, n),
        3 => in_forest(&mut r, n),
        4 => sp_pinned_outputs(&mut r, n),
        5 => fork_join(&mut r, n),
        6 => uniform_dag(&mut r, n),
        _ => wide_layered(&mut r, n),
    };
    Graph::from_spec(spec).expect("the generators make valid graphs")
}
