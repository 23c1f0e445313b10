//! Memory-aware fusion: as few kernels as possible while the fused graph's planned peak stays
//! within a limit (docs/design.md §4).
//!
//! Whether a region helps or hurts memory depends on the order the fused graph can run in:
//! vertical fusion usually lowers the peak (internal tensors vanish), horizontal fusion usually
//! raises it (all outputs are written at once), but neither always. So no rule decides here:
//! every candidate region choice is contracted ([`contract`]) and planned, and kept only if the
//! plan's peak is within the limit. This is the search-with-a-cost-model approach of fusion
//! planners such as Jia et al., "TASO" (SOSP 2019) and Zheng et al., "FusionStitching" (2020),
//! with the planned peak as the cost, as the Thunder report asks
//! (`../shared/seeds/thunder-horizontal-fusion-memory.md`).
//!
//! Search: when the region choices are few enough ([`EXACT_MAX_CHOICES`]), every set partition of
//! each tag's fusible ops is tried, most merges first, so the op count is minimal for the planner
//! used. Otherwise an agglomerative search merges two blocks at a time (producer-consumer pairs
//! first, then neighbours in the unfused plan's order), keeping each merge whose fused graph
//! still plans within the limit, until a full pass merges nothing or the budget runs out.

use crate::sort::CompactSort;
use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::budget::{Budget, Clock};
use crate::error::Error;
use crate::fusion::contract::{contract, region_name, Contracted};
use crate::fusion::thunder::thunder_regions;
use crate::graph::Graph;
use crate::plan::{plan, Method, PlanOptions};
use crate::simulate::peak_of;
use crate::OpIx;

/// The planner fusion asks: `auto` (Liu or exact search, else the best heuristic), so fusion
/// decisions rest on proven peaks wherever the budget allows. It is used nowhere else.
pub const PLAN_METHOD: Method = Method::Auto;

/// Most region choices the exhaustive search will enumerate before the agglomerative search
/// takes over (Bell(8) = 4140 partitions of eight ops of one tag).
pub const EXACT_MAX_CHOICES: u64 = 5_000;

/// Blocks ahead (in the unfused plan's order) that each block tries a horizontal merge with.
const HORIZONTAL_WINDOW: usize = 32;

/// The part of a fusion search's time one planner call may take, at most: the search plans
/// hundreds of fused graphs, so no single plan may use the whole budget.
const PLAN_CALL_MS: f64 = 50.0;

/// The most search states one planner call may expand (bounds a search when there is no clock).
const PLAN_CALL_STATES: u64 = 1_000_000;

/// An order of `g` and its peak, from the planner or from the hints, whichever peaks lower.
pub type Planned = (Vec<OpIx>, u64);

/// The one place fusion plans: runs [`PLAN_METHOD`] and keeps the lowest-peak order among its
/// result, the graph's file order, and `hints` (complete orders of `g` offered by the caller,
/// e.g. the unfused plan projected onto a fused graph). Every order is checked before use.
pub fn best_plan(g: &Graph, budget: &Budget, hints: &[Vec<OpIx>]) -> Result<Planned, Error> {
    let opts = PlanOptions {
        method: PLAN_METHOD,
        budget_ms: Some(
            budget
                .share_ms(1.0, Some(PLAN_CALL_MS))
                .unwrap_or(PLAN_CALL_MS),
        ),
        max_states: budget.max_states.min(PLAN_CALL_STATES),
        max_memory_bytes: budget.max_memory_bytes,
        ..PlanOptions::default()
    };
    let p = plan(g, &opts, budget.clock)?;
    let mut best = (p.order_ix, p.peak_bytes);
    if let Some(pp) = p.program_order_peak_bytes {
        if pp < best.1 {
            best = ((0..g.num_ops() as OpIx).collect(), pp);
        }
    }
    for h in hints {
        g.check_order(h)?;
        let peak = peak_of(g, h);
        if peak < best.1 {
            best = (h.clone(), peak);
        }
    }
    Ok(best)
}

/// One side of a fusion report: the regions chosen and what they cost (docs/design.md §4 fields).
#[derive(Clone, Debug, Serialize)]
pub struct FusedGraph {
    /// Op ids of each region of two or more ops, regions in the order they run.
    pub regions: Vec<Vec<String>>,
    /// Ops (kernels) of the unfused graph.
    pub ops_before: usize,
    /// Ops (kernels) of the fused graph.
    pub ops_after: usize,
    /// Best peak found for the unfused graph.
    pub peak_before_bytes: u64,
    /// Planned peak of the fused graph.
    pub peak_after_bytes: u64,
    /// The limit the fused graph's planned peak had to stay within.
    pub limit_bytes: u64,
    /// Memory at the start (every graph input).
    pub inputs_bytes: u64,
    /// `peak_after_bytes <= limit_bytes`.
    pub within_limit: bool,
    /// The fused graph's planned order; a region is named by its member ids joined with `+`.
    pub order: Vec<String>,
    /// The fused graph (validated).
    #[serde(skip)]
    pub graph: Graph,
    /// `order` as op indices of `graph`.
    #[serde(skip)]
    pub order_ix: Vec<OpIx>,
    /// The regions as op indices of the input graph.
    #[serde(skip)]
    pub regions_ix: Vec<Vec<OpIx>>,
}

impl FusedGraph {
    /// The fused graph as a file would hold it, its ops listed in the planned order (so its
    /// program order is the plan).
    pub fn to_spec(&self) -> crate::format::GraphSpec {
        let mut spec = crate::fusion::contract::graph_spec(&self.graph);
        let ops = std::mem::take(&mut spec.ops);
        let mut slots: Vec<Option<crate::format::OpSpec>> = ops.into_iter().map(Some).collect();
        spec.ops = self
            .order_ix
            .iter()
            .filter_map(|&v| slots[v as usize].take())
            .collect();
        spec
    }
}

/// The result of [`fuse`]: the memory-aware fusion and the Thunder-style baseline.
#[derive(Clone, Debug, Serialize)]
pub struct Fusion {
    #[serde(flatten)]
    /// The memory-aware fusion.
    pub fused: FusedGraph,
    /// The planning method behind every peak.
    pub planner: String,
    /// Every region choice was tried: no fusion with fewer ops plans within the limit (with this
    /// planner). False when the agglomerative search was used or the budget ran out.
    pub exhaustive: bool,
    /// Fused graphs planned during the search.
    pub evaluations: u64,
    /// The same fields for Thunder's pass, which merges without regard to memory.
    pub baseline: FusedGraph,
}

/// A planner as fusion sees it: a graph and hint orders in, an order and its peak out.
pub type Planner<'a> = dyn FnMut(&Graph, &[Vec<OpIx>]) -> Result<Planned, Error> + 'a;

/// Memory-aware fusion of `g` with [`best_plan`]: the fewest ops whose fused graph plans within
/// `limit` (default: the best peak found for `g` unfused). The baseline is computed too.
///
/// ```
/// use peakorder::examples::{seed_graph, SeedOptions};
/// use peakorder::fusion::fuse;
/// use peakorder::{Budget, Graph, NoClock};
///
/// // The seed graph with its relus tagged `fusible: "nvfuser"`, as Thunder tags them.
/// let g = Graph::from_spec(seed_graph(SeedOptions::default())).unwrap();
/// let f = fuse(&g, None, &Budget::new(&NoClock, None, 10_000_000)).unwrap();
/// // Fusion keeps the unfused optimum of 3.50 MiB and still saves kernels...
/// assert_eq!(f.fused.peak_after_bytes, 3_670_016);
/// assert!(f.fused.within_limit && f.fused.ops_after < f.fused.ops_before);
/// // ...where Thunder's horizontal pass, blind to memory, raises the peak.
/// assert!(f.baseline.peak_after_bytes > f.fused.peak_after_bytes);
/// ```
pub fn fuse(g: &Graph, limit: Option<u64>, budget: &Budget) -> Result<Fusion, Error> {
    let mut planner = |fg: &Graph, hints: &[Vec<OpIx>]| best_plan(fg, budget, hints);
    fuse_with(g, limit, budget, &mut planner)
}

/// Options of [`run`], the one entry point the CLI and the wasm layer call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FuseOptions {
    /// Highest planned peak allowed for the fused graph; `None`: the best peak found for the
    /// unfused graph.
    pub peak_limit: Option<u64>,
    /// Time the whole search may take, in milliseconds (needs a real [`Clock`]); `None`: no limit
    /// but `max_states`.
    pub budget_ms: Option<f64>,
    /// Most search states the whole search may expand.
    pub max_states: u64,
    /// Most bytes one exact search's state table may hold ([`Budget::max_memory_bytes`]).
    pub max_memory_bytes: u64,
}

impl Default for FuseOptions {
    /// The search plans hundreds of fused graphs, so it gets more than one plan's budget.
    fn default() -> Self {
        FuseOptions {
            peak_limit: None,
            budget_ms: Some(2000.0),
            max_states: PlanOptions::default().max_states.saturating_mul(50),
            max_memory_bytes: PlanOptions::default().max_memory_bytes,
        }
    }
}

/// Memory-aware fusion and the Thunder-style baseline of `g` (docs/design.md §4), the deadline read
/// from `clock`. The [`Budget`] is built here and only here, so callers never depend on its
/// fields.
///
/// ```
/// use peakorder::examples::{seed_graph, SeedOptions};
/// use peakorder::fusion::{run, FuseOptions};
/// use peakorder::{Graph, NoClock};
///
/// let g = Graph::from_spec(seed_graph(SeedOptions::default())).unwrap();
/// let f = run(&g, &FuseOptions::default(), &NoClock).unwrap();
/// assert!(f.fused.peak_after_bytes <= f.fused.limit_bytes);
/// // Regions are named by their members joined with `+`, in the fused graph's order too.
/// assert!(f.fused.order.iter().any(|op| op.contains('+')));
/// ```
pub fn run(g: &Graph, opts: &FuseOptions, clock: &dyn Clock) -> Result<Fusion, Error> {
    let mut budget = Budget::new(
        clock,
        opts.budget_ms.map(|b| clock.now_ms() + b),
        opts.max_states,
    );
    budget.max_memory_bytes = opts.max_memory_bytes;
    fuse(g, opts.peak_limit, &budget)
}

/// [`fuse`] with another planner (tests pass an exact one to check the search on its own).
pub fn fuse_with(
    g: &Graph,
    limit: Option<u64>,
    budget: &Budget,
    planner: &mut Planner,
) -> Result<Fusion, Error> {
    let (reference, peak_before) = planner(g, &[])?;
    let limit = limit.unwrap_or(peak_before);
    let mut ref_pos = vec![0u64; g.num_ops()];
    for (i, &v) in reference.iter().enumerate() {
        ref_pos[v as usize] = i as u64;
    }
    let mut search = Search {
        g,
        budget,
        planner,
        ref_pos,
        evaluations: 0,
        spent_states: 0,
        lowest_peak: u64::MAX,
    };
    let unfused = search.evaluate_or_fail(&[])?;
    let mut best = Candidate {
        regions: Vec::new(),
        evaluated: unfused,
    };
    let mut exhaustive = false;
    best = search.agglomerate(best, limit)?;
    if let Some(choices) = search.exact_choices() {
        let (found, complete) = search.exhaust(&choices, &best, limit)?;
        exhaustive = complete;
        if let Some(found) = found {
            let (fm, bm) = (merges(&found.regions), merges(&best.regions));
            let ok = best.evaluated.peak <= limit;
            if !ok || fm > bm || (fm == bm && found.evaluated.peak < best.evaluated.peak) {
                best = found;
            }
        }
    }
    if best.evaluated.peak > limit {
        return Err(Error::PeakLimit {
            limit,
            best: search.lowest_peak,
        });
    }
    let fused = summary(g, best, peak_before, limit);

    let baseline_regions = thunder_regions(g);
    let evaluated = search.evaluate_or_fail(&baseline_regions)?;
    let baseline = summary(
        g,
        Candidate {
            regions: baseline_regions,
            evaluated,
        },
        peak_before,
        limit,
    );
    Ok(Fusion {
        fused,
        planner: PLAN_METHOD.name().to_string(),
        exhaustive,
        evaluations: search.evaluations,
        baseline,
    })
}

/// Two ops whose blocks a merge would join.
type Pair = (OpIx, OpIx);

/// The fusible ops of one tag and every set partition of them (restricted growth strings).
type Choices = (Vec<OpIx>, Vec<Vec<u8>>);

/// A fused graph with its plan.
struct Evaluated {
    contracted: Contracted,
    order: Vec<OpIx>,
    peak: u64,
}

/// A region choice and its evaluation.
struct Candidate {
    regions: Vec<Vec<OpIx>>,
    evaluated: Evaluated,
}

fn merges(regions: &[Vec<OpIx>]) -> usize {
    regions.iter().map(|r| r.len().saturating_sub(1)).sum()
}

fn summary(g: &Graph, c: Candidate, peak_before: u64, limit: u64) -> FusedGraph {
    let Evaluated {
        contracted,
        order,
        peak,
    } = c.evaluated;
    let fg = contracted.graph;
    let mut regions_ix: Vec<Vec<OpIx>> = order
        .iter()
        .map(|&f| contracted.members[f as usize].clone())
        .filter(|m| m.len() > 1)
        .collect();
    for r in &mut regions_ix {
        r.sort_unstable_compact();
    }
    FusedGraph {
        regions: regions_ix.iter().map(|r| g.op_ids(r)).collect(),
        ops_before: g.num_ops(),
        ops_after: fg.num_ops(),
        peak_before_bytes: peak_before,
        peak_after_bytes: peak,
        limit_bytes: limit,
        inputs_bytes: fg.inputs_bytes(),
        within_limit: peak <= limit,
        order: fg.op_ids(&order),
        order_ix: order,
        regions_ix,
        graph: fg,
    }
}

struct Search<'a, 'p> {
    g: &'a Graph,
    budget: &'a Budget<'a>,
    planner: &'a mut Planner<'p>,
    /// Position of each op in the unfused plan.
    ref_pos: Vec<u64>,
    evaluations: u64,
    spent_states: u64,
    /// The lowest peak of any fused graph planned so far.
    lowest_peak: u64,
}

impl Search<'_, '_> {
    fn exhausted(&self) -> bool {
        self.spent_states >= self.budget.max_states || self.budget.expired()
    }

    /// Contracts `regions` and plans the result; `None` when the contraction is impossible (a
    /// cycle, or a name clash), which rules the choice out.
    fn evaluate(&mut self, regions: &[Vec<OpIx>]) -> Result<Option<Evaluated>, Error> {
        match self.evaluate_or_fail(regions) {
            Ok(ev) => Ok(Some(ev)),
            Err(Error::RegionCycle { .. } | Error::BadRegion { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// [`Search::evaluate`] for a choice that must be possible: every error is returned.
    fn evaluate_or_fail(&mut self, regions: &[Vec<OpIx>]) -> Result<Evaluated, Error> {
        let contracted = contract(self.g, regions)?;
        self.evaluations += 1;
        self.spent_states = self
            .spent_states
            .saturating_add(contracted.graph.num_ops() as u64 + 1);
        let hints = [
            project(&contracted, &self.ref_pos, false),
            project(&contracted, &self.ref_pos, true),
        ];
        let (order, peak) = (self.planner)(&contracted.graph, &hints)?;
        self.lowest_peak = self.lowest_peak.min(peak);
        Ok(Evaluated {
            contracted,
            order,
            peak,
        })
    }

    /// Fusible ops grouped by tag, groups of two or more, in tag order.
    fn tag_groups(&self) -> Vec<Vec<OpIx>> {
        let mut by_tag: BTreeMap<&str, Vec<OpIx>> = BTreeMap::new();
        for (v, op) in self.g.ops().iter().enumerate() {
            if let Some(t) = op.fusible.as_deref() {
                by_tag.entry(t).or_default().push(v as OpIx);
            }
        }
        by_tag.into_values().filter(|m| m.len() > 1).collect()
    }

    /// Every region choice as (group, restricted growth strings of its set partitions), when
    /// their number is small enough to try them all.
    fn exact_choices(&self) -> Option<Vec<Choices>> {
        let groups = self.tag_groups();
        let mut count: u64 = 1;
        for m in &groups {
            count = count.saturating_mul(bell(m.len())?);
            if count > EXACT_MAX_CHOICES {
                return None;
            }
        }
        let per_eval = self.g.num_ops() as u64 + 1;
        if count.saturating_mul(per_eval) > self.budget.max_states {
            return None;
        }
        Some(
            groups
                .into_iter()
                .map(|m| {
                    let rgs = restricted_growth_strings(m.len());
                    (m, rgs)
                })
                .collect(),
        )
    }

    /// Tries every region choice with at least as many merges as `incumbent` (any, when the
    /// incumbent misses the limit), most merges first. At the first merge count where some choice
    /// plans within `limit`, returns the one with the lowest peak there; the flag says whether
    /// the search finished before the budget ran out.
    fn exhaust(
        &mut self,
        choices: &[Choices],
        incumbent: &Candidate,
        limit: u64,
    ) -> Result<(Option<Candidate>, bool), Error> {
        // Every combination of the groups' partitions (an odometer).
        let mut all: Vec<(usize, Vec<Vec<OpIx>>)> = Vec::new();
        let mut idx = vec![0usize; choices.len()];
        loop {
            let mut regions: Vec<Vec<OpIx>> = Vec::new();
            for (k, (members, rgs)) in choices.iter().enumerate() {
                let s = &rgs[idx[k]];
                let blocks = s.iter().max().map_or(0, |&x| x as usize + 1);
                let mut parts: Vec<Vec<OpIx>> = vec![Vec::new(); blocks];
                for (i, &b) in s.iter().enumerate() {
                    parts[b as usize].push(members[i]);
                }
                regions.extend(parts.into_iter().filter(|p| p.len() > 1));
            }
            all.push((merges(&regions), regions));
            let mut k = 0;
            while k < choices.len() {
                idx[k] += 1;
                if idx[k] < choices[k].1.len() {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
            if k == choices.len() {
                break;
            }
        }
        all.sort_by_key_compact(|a| std::cmp::Reverse(a.0));
        let floor = if incumbent.evaluated.peak <= limit {
            merges(&incumbent.regions)
        } else {
            0
        };
        let mut best: Option<(usize, Candidate)> = None;
        for (m, regions) in all {
            if m < floor || best.as_ref().is_some_and(|(bm, _)| m < *bm) {
                break;
            }
            if self.exhausted() {
                return Ok((best.map(|(_, b)| b), false));
            }
            let Some(ev) = self.evaluate(&regions)? else {
                continue;
            };
            if ev.peak <= limit
                && best
                    .as_ref()
                    .map_or(true, |(_, b)| ev.peak < b.evaluated.peak)
            {
                best = Some((
                    m,
                    Candidate {
                        regions,
                        evaluated: ev,
                    },
                ));
            }
        }
        Ok((best.map(|(_, b)| b), true))
    }

    /// Merges two blocks at a time while the fused graph plans within the limit (or, above it,
    /// no higher than before), until a full pass merges nothing or the budget runs out.
    fn agglomerate(&mut self, start: Candidate, limit: u64) -> Result<Candidate, Error> {
        let g = self.g;
        let n = g.num_ops();
        let mut block_of: Vec<u32> = (0..n as u32).collect();
        let mut members: Vec<Vec<OpIx>> = (0..n as OpIx).map(|v| vec![v]).collect();
        for r in &start.regions {
            let b = r[0];
            for &v in &r[1..] {
                block_of[v as usize] = b;
                members[v as usize].clear();
            }
            members[b as usize] = r.clone();
        }
        let mut current = start;
        loop {
            let mut changed = false;
            let (vertical, horizontal) = self.candidates(&block_of, &members);
            // Producer-consumer merges mostly succeed: try them in batches, halving a batch that
            // fails, so a long fusible chain costs a few plans instead of one per op. An explicit
            // stack keeps this iterative.
            let mut stack = vec![(0, vertical.len())];
            while let Some((lo, hi)) = stack.pop() {
                if lo >= hi {
                    continue;
                }
                if self.exhausted() {
                    return Ok(current);
                }
                let state = (&mut block_of, &mut members, &mut current);
                if self.try_merge(state, &vertical[lo..hi], limit)? {
                    changed = true;
                } else if hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    stack.push((mid, hi));
                    stack.push((lo, mid));
                }
            }
            // Horizontal merges mostly raise the peak: one pair at a time.
            for pair in horizontal {
                if self.exhausted() {
                    return Ok(current);
                }
                let state = (&mut block_of, &mut members, &mut current);
                changed |= self.try_merge(state, &[pair], limit)?;
            }
            if !changed {
                return Ok(current);
            }
        }
    }

    /// Merges the blocks of each pair of ops, plans the result and keeps it when its peak is
    /// within `limit` (or, while the current choice is above the limit, no higher than it).
    fn try_merge(
        &mut self,
        (block_of, members, current): (&mut Vec<u32>, &mut Vec<Vec<OpIx>>, &mut Candidate),
        pairs: &[(OpIx, OpIx)],
        limit: u64,
    ) -> Result<bool, Error> {
        let g = self.g;
        let tag = |v: OpIx| g.ops()[v as usize].fusible.as_deref();
        let mut new_block_of = block_of.clone();
        let mut new_members = members.clone();
        let mut touched: Vec<u32> = Vec::new();
        for &(u, v) in pairs {
            let (a, b) = (new_block_of[u as usize], new_block_of[v as usize]);
            if a == b || tag(u).is_none() || tag(u) != tag(v) {
                continue;
            }
            let moved = std::mem::take(&mut new_members[b as usize]);
            for &x in &moved {
                new_block_of[x as usize] = a;
            }
            new_members[a as usize].extend(moved);
            touched.push(a);
        }
        if touched.is_empty() {
            return Ok(false);
        }
        touched.sort_unstable_compact();
        touched.dedup();
        for &a in &touched {
            new_members[a as usize].sort_unstable_compact();
        }
        let regions: Vec<Vec<OpIx>> = new_members
            .iter()
            .filter(|m| m.len() > 1)
            .cloned()
            .collect();
        let Some(ev) = self.evaluate(&regions)? else {
            return Ok(false);
        };
        if ev.peak > limit.max(current.evaluated.peak) {
            return Ok(false);
        }
        *block_of = new_block_of;
        *members = new_members;
        *current = Candidate {
            regions,
            evaluated: ev,
        };
        Ok(true)
    }

    /// Merge candidates as pairs of member ops: producer-consumer pairs of blocks (in the unfused
    /// plan's order), and each block with the next blocks of its tag in that order.
    fn candidates(&self, block_of: &[u32], members: &[Vec<OpIx>]) -> (Vec<Pair>, Vec<Pair>) {
        let g = self.g;
        let tag = |v: OpIx| g.ops()[v as usize].fusible.as_deref();
        let block_pos = |b: u32| {
            members[b as usize]
                .iter()
                .map(|&m| self.ref_pos[m as usize])
                .min()
                .unwrap_or(u64::MAX)
        };
        let mut seen: HashSet<(u32, u32)> = HashSet::new();
        let mut vertical: Vec<(u64, OpIx, OpIx)> = Vec::new();
        for v in 0..g.num_ops() as OpIx {
            let Some(t) = tag(v) else { continue };
            for &p in g.preds(v) {
                let (bp, bv) = (block_of[p as usize], block_of[v as usize]);
                if bp != bv && tag(p) == Some(t) && seen.insert((bp.min(bv), bp.max(bv))) {
                    vertical.push((block_pos(bp), p, v));
                }
            }
        }
        vertical.sort_unstable_compact();
        let vertical: Vec<Pair> = vertical.into_iter().map(|(_, p, v)| (p, v)).collect();
        let mut horizontal: Vec<Pair> = Vec::new();
        let mut by_tag: BTreeMap<&str, Vec<(u64, u32)>> = BTreeMap::new();
        for (b, m) in members.iter().enumerate() {
            if let Some(&first) = m.first() {
                if let Some(t) = tag(first) {
                    by_tag
                        .entry(t)
                        .or_default()
                        .push((block_pos(b as u32), b as u32));
                }
            }
        }
        for blocks in by_tag.values_mut() {
            blocks.sort_unstable_compact();
            for i in 0..blocks.len() {
                for j in i + 1..blocks.len().min(i + 1 + HORIZONTAL_WINDOW) {
                    let (a, b) = (blocks[i].1, blocks[j].1);
                    if seen.insert((a.min(b), a.max(b))) {
                        horizontal.push((members[a as usize][0], members[b as usize][0]));
                    }
                }
            }
        }
        (vertical, horizontal)
    }
}

/// A topological order of a fused graph that follows a reference order of the unfused ops: each
/// fused op ranks by its earliest member (or its latest, with `latest`).
fn project(c: &Contracted, ref_pos: &[u64], latest: bool) -> Vec<OpIx> {
    let fg = &c.graph;
    let priority: Vec<u64> = c
        .members
        .iter()
        .map(|m| {
            let it = m.iter().map(|&v| ref_pos[v as usize]);
            if latest {
                it.max().unwrap_or(0)
            } else {
                it.min().unwrap_or(0)
            }
        })
        .collect();
    let ident: Vec<u32> = (0..fg.num_ops() as u32).collect();
    // Every op is its own block here, so the order always exists.
    crate::fusion::contract::block_order(fg, &ident, fg.num_ops(), &priority)
        .unwrap_or_else(|_| ident.clone())
}

/// Bell numbers: how many ways to partition `m` ops into regions (None past u64).
fn bell(m: usize) -> Option<u64> {
    // The Bell triangle, row by row.
    let mut row: Vec<u64> = vec![1];
    for _ in 0..m {
        let mut next = Vec::with_capacity(row.len() + 1);
        next.push(*row.last()?);
        for &x in &row {
            next.push(next.last()?.checked_add(x)?);
        }
        row = next;
    }
    row.first().copied()
}

/// Every set partition of `m` items as a restricted growth string (item i's block number, each
/// block numbered by first appearance).
fn restricted_growth_strings(m: usize) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..m {
        let mut next = Vec::new();
        for s in &out {
            let top = s.iter().max().map_or(0, |&x| x + 1);
            for b in 0..=top {
                let mut t = s.clone();
                t.push(b);
                next.push(t);
            }
        }
        out = next;
    }
    out
}

/// The regions' names, for messages and tests.
pub fn region_names(g: &Graph, regions: &[Vec<OpIx>]) -> Vec<String> {
    regions.iter().map(|r| region_name(g, r)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bell_numbers() {
        let b: Vec<u64> = (0..8).map(|m| bell(m).unwrap()).collect();
        assert_eq!(b, vec![1, 1, 2, 5, 15, 52, 203, 877]);
        for m in 0..7 {
            assert_eq!(restricted_growth_strings(m).len() as u64, bell(m).unwrap());
        }
    }
}
