//! The baseline: Thunder's fusion pass before it considered memory
//! (`thunder/executors/data_dependent_partition.py`, `horizontal_merge` and `dataflow_merge`, as
//! described in the Lightning-AI/lightning-thunder issue "Thunder's horizontal fusion is memory
//! inefficient for backward functions with activation checkpointing", 2024).
//!
//! 1. Horizontal: a topological sort with a FIFO ready list. Each popped op that is fusible is
//!    merged with every other ready op of the same tag, including ops that become ready while the
//!    group grows (Thunder appends them to the list it is scanning).
//! 2. Vertical: producer groups are merged into consumer groups when both are fusible with the same
//!    tag and the merge creates no cycle, repeated until nothing merges.
//!
//! Nothing here looks at memory; that is the point of the baseline.

use crate::sort::CompactSort;
use std::collections::{BTreeSet, HashMap, VecDeque};

use crate::graph::Graph;
use crate::OpIx;

/// The regions (two or more ops each, members in file order) Thunder's pass would form.
pub fn thunder_regions(g: &Graph) -> Vec<Vec<OpIx>> {
    let n = g.num_ops();
    let mut tag_ids: HashMap<&str, u32> = HashMap::new();
    let tag_of: Vec<Option<u32>> = g
        .ops()
        .iter()
        .map(|op| {
            op.fusible.as_deref().map(|t| {
                let next = tag_ids.len() as u32;
                *tag_ids.entry(t).or_insert(next)
            })
        })
        .collect();

    // 1. Horizontal merge during a FIFO topological sort.
    let mut missing: Vec<u32> = (0..n as OpIx).map(|v| g.preds(v).len() as u32).collect();
    let mut ready: VecDeque<OpIx> = VecDeque::new();
    let mut ready_by_tag: Vec<VecDeque<OpIx>> = vec![VecDeque::new(); tag_ids.len()];
    for v in 0..n as OpIx {
        if missing[v as usize] == 0 {
            ready.push_back(v);
            if let Some(t) = tag_of[v as usize] {
                ready_by_tag[t as usize].push_back(v);
            }
        }
    }
    let mut taken = vec![false; n];
    let mut group_of = vec![0u32; n];
    let mut groups: Vec<Vec<OpIx>> = Vec::new();
    let release = |v: OpIx,
                   missing: &mut [u32],
                   ready: &mut VecDeque<OpIx>,
                   ready_by_tag: &mut [VecDeque<OpIx>]| {
        for &w in g.succs(v) {
            missing[w as usize] -= 1;
            if missing[w as usize] == 0 {
                ready.push_back(w);
                if let Some(t) = tag_of[w as usize] {
                    ready_by_tag[t as usize].push_back(w);
                }
            }
        }
    };
    while let Some(cur) = ready.pop_front() {
        if taken[cur as usize] {
            continue; // already merged into an earlier group
        }
        taken[cur as usize] = true;
        let gid = groups.len() as u32;
        groups.push(vec![cur]);
        group_of[cur as usize] = gid;
        release(cur, &mut missing, &mut ready, &mut ready_by_tag);
        if let Some(t) = tag_of[cur as usize] {
            while let Some(x) = ready_by_tag[t as usize].pop_front() {
                if taken[x as usize] {
                    continue;
                }
                taken[x as usize] = true;
                groups[gid as usize].push(x);
                group_of[x as usize] = gid;
                release(x, &mut missing, &mut ready, &mut ready_by_tag);
            }
        }
    }

    // 2. Vertical merge of producer groups into consumer groups.
    let n_groups = groups.len();
    let mut parents: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n_groups];
    let mut children: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n_groups];
    for v in 0..n as OpIx {
        let gv = group_of[v as usize];
        for &p in g.preds(v) {
            let gp = group_of[p as usize];
            if gp != gv {
                parents[gv as usize].insert(gp);
                children[gp as usize].insert(gv);
            }
        }
    }
    let tag_of_group: Vec<Option<u32>> = groups.iter().map(|m| tag_of[m[0] as usize]).collect();
    let mut alive = vec![true; n_groups];
    loop {
        let mut changed = false;
        for a in group_topo_order(&parents, &children, &alive) {
            if !alive[a as usize] || tag_of_group[a as usize].is_none() {
                continue;
            }
            loop {
                let candidate = children[a as usize].iter().copied().find(|&b| {
                    tag_of_group[b as usize] == tag_of_group[a as usize]
                        && !merge_makes_cycle(&parents, &children, a, b)
                });
                let Some(b) = candidate else { break };
                let moved = std::mem::take(&mut groups[b as usize]);
                groups[a as usize].extend(moved);
                alive[b as usize] = false;
                for p in std::mem::take(&mut parents[b as usize]) {
                    if p != a {
                        children[p as usize].remove(&b);
                        children[p as usize].insert(a);
                        parents[a as usize].insert(p);
                    }
                }
                for c in std::mem::take(&mut children[b as usize]) {
                    parents[c as usize].remove(&b);
                    parents[c as usize].insert(a);
                    children[a as usize].insert(c);
                }
                children[a as usize].remove(&b);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }

    let mut regions: Vec<Vec<OpIx>> = groups
        .into_iter()
        .zip(alive)
        .filter(|(m, a)| *a && m.len() > 1)
        .map(|(mut m, _)| {
            m.sort_unstable_compact();
            m
        })
        .collect();
    regions.sort_unstable_compact();
    regions
}

/// A FIFO topological order of the live groups.
fn group_topo_order(
    parents: &[BTreeSet<u32>],
    children: &[BTreeSet<u32>],
    alive: &[bool],
) -> Vec<u32> {
    let mut indeg: Vec<usize> = parents.iter().map(|p| p.len()).collect();
    let mut queue: VecDeque<u32> = (0..parents.len() as u32)
        .filter(|&b| alive[b as usize] && indeg[b as usize] == 0)
        .collect();
    let mut order = Vec::new();
    while let Some(b) = queue.pop_front() {
        order.push(b);
        for &c in &children[b as usize] {
            indeg[c as usize] -= 1;
            if indeg[c as usize] == 0 {
                queue.push_back(c);
            }
        }
    }
    order
}

/// Merging consumer `b` into its producer `a` makes a cycle exactly when `b` is also reachable
/// from `a` through some other group.
fn merge_makes_cycle(
    parents: &[BTreeSet<u32>],
    children: &[BTreeSet<u32>],
    a: u32,
    b: u32,
) -> bool {
    if parents[b as usize].len() == 1 {
        return false; // `a` is b's only producer
    }
    let mut seen: BTreeSet<u32> = BTreeSet::new();
    let mut stack: Vec<u32> = children[a as usize]
        .iter()
        .copied()
        .filter(|&c| c != b)
        .collect();
    while let Some(x) = stack.pop() {
        if x == b {
            return true;
        }
        if seen.insert(x) {
            stack.extend(children[x as usize].iter().copied());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(ops: &[(&str, &[&str], &str, Option<&str>)]) -> Graph {
        let mut tensors: Vec<String> = Vec::new();
        let mut op_json = Vec::new();
        for (id, inputs, output, tag) in ops {
            for t in inputs.iter().chain(std::iter::once(output)) {
                if !tensors.contains(&t.to_string()) {
                    tensors.push(t.to_string());
                }
            }
            let tag = tag.map_or(String::new(), |t| format!(r#", "fusible": "{t}""#));
            op_json.push(format!(
                r#"{{"id": "{id}", "inputs": {inputs:?}, "outputs": ["{output}"]{tag}}}"#
            ));
        }
        let tensors: Vec<String> = tensors
            .iter()
            .map(|t| format!(r#"{{"id": "{t}", "bytes": 8}}"#))
            .collect();
        let text = format!(
            r#"{{"tensors": [{}], "ops": [{}], "outputs": []}}"#,
            tensors.join(","),
            op_json.join(",")
        );
        Graph::from_json(&text).unwrap()
    }

    #[test]
    fn merges_ops_that_become_ready_while_the_group_grows() {
        // a -> b is a fusible chain, c is independent: one group of all three.
        let g = graph(&[
            ("a", &["x"], "ya", Some("f")),
            ("b", &["ya"], "yb", Some("f")),
            ("c", &["x"], "yc", Some("f")),
        ]);
        assert_eq!(thunder_regions(&g), vec![vec![0, 1, 2]]);
    }

    #[test]
    fn refuses_a_vertical_merge_that_would_loop() {
        // a -> m -> c and a -> c, m not fusible: a and c cannot share a region.
        let g = graph(&[
            ("a", &["x"], "ya", Some("f")),
            ("m", &["ya"], "ym", None),
            ("c", &["ya", "ym"], "yc", Some("f")),
        ]);
        assert!(thunder_regions(&g).is_empty());
    }

    #[test]
    fn tags_do_not_mix() {
        let g = graph(&[
            ("a", &["x"], "ya", Some("f")),
            ("b", &["x"], "yb", Some("g")),
            ("c", &["x"], "yc", Some("f")),
            ("d", &["yb"], "yd", Some("g")),
        ]);
        assert_eq!(thunder_regions(&g), vec![vec![0, 2], vec![1, 3]]);
    }
}
