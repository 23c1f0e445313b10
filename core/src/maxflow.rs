//! Maximum flow (minimum cut) by Dinic's algorithm: E. A. Dinic, "Algorithm for solution of a
//! problem of maximum flow in networks with power estimation", Soviet Math. Doklady 11, 1970.
//! Capacities are u64; the depth-first phase keeps its own stack (no recursion).
//!
//! Edges are gathered as added, then laid out once per flow as compressed rows (each node's
//! edges contiguous, each with the index of its residual twin), which the breadth- and
//! depth-first passes read in order. Each phase's breadth-first search stops once it reaches
//! the sink (no node at or past the sink's level lies on a shortest path), and the depth-first
//! pass pushes flow from a node down several paths before returning (the textbook recursive
//! form, on an explicit stack): a path prefix shared by many augmenting paths is walked and
//! updated once per visit, not once per path. The cut networks of [`crate::bounds::cut`] need
//! about a hundred augmenting paths in a few phases, along long chains of precedence arcs, so
//! walking each path again from the source was most of a flow's time.
//!
//! Whatever the order of augmentations, the nodes reachable from the source in the residual
//! graph of a maximum flow are the same (the least source side of a minimum cut), so
//! [`Network::source_side`] does not depend on how the flow was found.

/// A flow network built edge by edge.
#[derive(Clone, Debug, Default)]
pub struct Network {
    nodes: usize,
    /// Edges as added: tail, head, and the residual capacities of the edge and of its twin.
    arcs: Vec<(u32, u32, u64, u64)>,
    /// How many of `arcs` the rows below hold (they are laid out again when more are added).
    laid: usize,
    /// Compressed rows: node u's edges are `start[u]..start[u + 1]`.
    start: Vec<u32>,
    edges: Vec<Edge>,
    work: Work,
}

/// One direction of an edge, as laid out: its head, residual capacity and twin, side by side
/// (the passes read all three of an edge at once).
#[derive(Clone, Copy, Debug, Default)]
struct Edge {
    to: u32,
    rev: u32,
    cap: u64,
}

/// Buffers one flow needs, kept between flows.
#[derive(Clone, Debug, Default)]
struct Work {
    level: Vec<u32>,
    queue: Vec<u32>,
    iter: Vec<u32>,
    /// The depth-first pass's frames: node, the edge that led to it, what it may push, what
    /// it has pushed.
    frames: Vec<(u32, u32, u64, u64)>,
}

const NONE: u32 = u32::MAX;

/// A capacity no cut pays: larger than any sum of finite capacities used here (a graph's
/// sizes sum to at most u64::MAX, checked on validation), yet safe to add a few of.
pub const INF: u64 = u64::MAX / 4;

impl Network {
    pub fn new(nodes: usize) -> Network {
        Network {
            nodes,
            ..Network::default()
        }
    }

    /// Empties the network and gives it `nodes` nodes, keeping its allocations (for callers
    /// that build many networks one after another).
    pub fn reset(&mut self, nodes: usize) {
        self.nodes = nodes;
        self.arcs.clear();
        self.laid = 0;
        // No rows: the next flow lays them out, even with no edges.
        self.start.clear();
    }

    /// Adds a node, returning its number.
    pub fn add_node(&mut self) -> u32 {
        // The rows no longer fit: the next flow lays them out again.
        self.nodes += 1;
        (self.nodes - 1) as u32
    }

    /// Adds an edge `from -> to` of capacity `cap` (and its residual twin).
    pub fn add_edge(&mut self, from: u32, to: u32, cap: u64) {
        assert!(
            (from as usize) < self.nodes && (to as usize) < self.nodes,
            "edge {from} -> {to} outside a network of {} nodes",
            self.nodes
        );
        self.arcs.push((from, to, cap, 0));
    }

    /// Lays the edges out as rows, carrying over the residual capacities of a flow so far.
    fn lay_out(&mut self) {
        if self.laid == self.arcs.len() && self.start.len() == self.nodes + 1 {
            return;
        }
        if self.laid > 0 {
            // Edges added after a flow: carry its residual capacities over, finding each arc's
            // edges the way they were laid out.
            let fill = &mut self.work.iter;
            fill.clear();
            fill.extend_from_slice(&self.start[1..]);
            for arc in &mut self.arcs[..self.laid] {
                fill[arc.0 as usize] -= 1;
                arc.2 = self.edges[fill[arc.0 as usize] as usize].cap;
                fill[arc.1 as usize] -= 1;
                arc.3 = self.edges[fill[arc.1 as usize] as usize].cap;
            }
        }
        let n = self.nodes;
        let m = 2 * self.arcs.len();
        self.start.clear();
        self.start.resize(n + 1, 0);
        for &(a, b, _, _) in &self.arcs {
            self.start[a as usize + 1] += 1;
            self.start[b as usize + 1] += 1;
        }
        for u in 0..n {
            self.start[u + 1] += self.start[u];
        }
        // Fill each row from its end, so the rows need no second cursor array.
        self.edges.clear();
        self.edges.resize(m, Edge::default());
        let fill = &mut self.work.iter;
        fill.clear();
        fill.extend_from_slice(&self.start[1..]);
        for &(a, b, c, r) in &self.arcs {
            fill[a as usize] -= 1;
            let p = fill[a as usize];
            fill[b as usize] -= 1;
            let q = fill[b as usize];
            self.edges[p as usize] = Edge {
                to: b,
                rev: q,
                cap: c,
            };
            self.edges[q as usize] = Edge {
                to: a,
                rev: p,
                cap: r,
            };
        }
        self.laid = self.arcs.len();
    }

    /// The maximum flow from `s` to `t` (the capacity of a minimum cut), or at least `limit`
    /// once it reaches it (the caller only needs to know that much). Consumes the capacities.
    pub fn max_flow(&mut self, s: u32, t: u32, limit: u64) -> u64 {
        self.max_flow_until(s, t, limit, &|| false).0
    }

    /// [`Network::max_flow`], stopping between phases once `stop()` is true (a phase is one
    /// pass over the edges; a flow on a 100,000-node network can take hundreds). Returns the
    /// flow so far and whether it is final (the maximum, or at least `limit`); when it is not,
    /// the flow so far is still at most the minimum cut.
    pub fn max_flow_until(
        &mut self,
        s: u32,
        t: u32,
        limit: u64,
        stop: &dyn Fn() -> bool,
    ) -> (u64, bool) {
        self.lay_out();
        let n = self.nodes;
        let Work {
            level,
            queue,
            iter,
            frames,
        } = &mut self.work;
        let (start, edges) = (&self.start, &mut self.edges);
        level.clear();
        level.resize(n, NONE);
        iter.clear();
        iter.resize(n, 0);
        let mut flow = 0u64;
        if s == t {
            return (limit, true);
        }
        // Edges scanned, added to the work count before the clock is read (it may be a
        // `WorkClock`) and at the end.
        let mut scanned = 0u64;
        while flow < limit {
            crate::work::add(std::mem::take(&mut scanned));
            if stop() {
                return (flow, false);
            }
            // Levels by breadth-first search over edges with capacity left, up to the sink.
            level.fill(NONE);
            level[s as usize] = 0;
            queue.clear();
            queue.push(s);
            let mut qi = 0;
            'bfs: while qi < queue.len() {
                let u = queue[qi];
                qi += 1;
                let lu = level[u as usize] + 1;
                scanned += u64::from(start[u as usize + 1] - start[u as usize]) + 1;
                for e in start[u as usize]..start[u as usize + 1] {
                    let Edge { to: v, cap: c, .. } = edges[e as usize];
                    if c > 0 && level[v as usize] == NONE {
                        level[v as usize] = lu;
                        if v == t {
                            break 'bfs;
                        }
                        queue.push(v);
                    }
                }
            }
            if level[t as usize] == NONE {
                break;
            }
            iter.copy_from_slice(&start[..n]);
            // Blocking flow, depth first: a frame pushes what it may down its node's edges in
            // turn, and returns what it pushed to the frame below, which updates the edge
            // between them.
            frames.clear();
            frames.push((s, NONE, limit - flow, 0));
            let pushed = loop {
                let (u, _, may, done) = *frames.last().expect("the source's frame");
                let ret = if u == t {
                    Some(may)
                } else if done == may {
                    Some(done)
                } else {
                    let lu = level[u as usize] + 1;
                    let end = start[u as usize + 1];
                    let mut i = iter[u as usize];
                    scanned += 1;
                    while i < end && {
                        let x = edges[i as usize];
                        x.cap == 0 || level[x.to as usize] != lu
                    } {
                        i += 1;
                    }
                    scanned += u64::from(i - iter[u as usize]);
                    iter[u as usize] = i;
                    if i < end {
                        let x = edges[i as usize];
                        frames.push((x.to, i, x.cap.min(may - done), 0));
                        None
                    } else {
                        // Dead end: no more flow through u in this phase.
                        level[u as usize] = NONE;
                        Some(done)
                    }
                };
                let Some(ret) = ret else { continue };
                let (_, e, may, _) = frames.pop().expect("the frame just read");
                let Some(below) = frames.last_mut() else {
                    break ret;
                };
                if ret > 0 {
                    edges[e as usize].cap -= ret;
                    let r = edges[e as usize].rev;
                    edges[r as usize].cap += ret;
                    below.3 += ret;
                }
                if ret < may || edges[e as usize].cap == 0 {
                    // The edge is saturated or its head is blocked: the next one.
                    iter[below.0 as usize] += 1;
                }
            };
            flow += pushed;
        }
        crate::work::add(scanned);
        (flow, true)
    }
}

impl Network {
    /// The nodes on the source side of a minimum cut: those reachable from `s` along edges with
    /// capacity left. Meaningful after [`Network::max_flow`] returned less than its limit (the
    /// flow is then maximum).
    pub fn source_side(&mut self, s: u32) -> Vec<bool> {
        self.lay_out();
        let mut seen = vec![false; self.nodes];
        seen[s as usize] = true;
        let stack = &mut self.work.queue;
        stack.clear();
        stack.push(s);
        while let Some(u) = stack.pop() {
            for e in self.start[u as usize]..self.start[u as usize + 1] {
                let Edge { to: v, cap: c, .. } = self.edges[e as usize];
                if c > 0 && !seen[v as usize] {
                    seen[v as usize] = true;
                    stack.push(v);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn classic_network() {
        // CLRS figure 26.1: maximum flow 23.
        let mut f = Network::new(6);
        for (a, b, c) in [
            (0, 1, 16),
            (0, 2, 13),
            (2, 1, 4),
            (1, 3, 12),
            (3, 2, 9),
            (2, 4, 14),
            (4, 3, 7),
            (3, 5, 20),
            (4, 5, 4),
        ] {
            f.add_edge(a, b, c);
        }
        assert_eq!(f.clone().max_flow(0, 5, u64::MAX), 23);
        let mut g = f.clone();
        g.max_flow(0, 5, u64::MAX);
        // CLRS's minimum cut: {s, v1, v2, v4} on the source side.
        let side = g.source_side(0);
        assert_eq!(side, vec![true, true, true, false, true, false]);
        assert_eq!(f.max_flow(0, 5, 10), 10);
    }

    #[test]
    fn reset_forgets_the_edges() {
        let mut f = Network::new(2);
        f.add_edge(0, 1, 5);
        assert_eq!(f.max_flow(0, 1, 2), 2);
        f.reset(2);
        assert_eq!(f.max_flow(0, 1, u64::MAX), 0);
        assert_eq!(f.source_side(0), vec![true, false]);
    }

    #[test]
    fn disconnected_has_no_flow() {
        let mut f = Network::new(3);
        f.add_edge(0, 1, 5);
        assert_eq!(f.max_flow(0, 2, u64::MAX), 0);
    }

    /// Edmonds–Karp on a capacity matrix, in u128: the maximum flow and the nodes reachable
    /// from the source in its residual graph (the least source side of a minimum cut).
    fn reference(n: usize, edges: &[(u32, u32, u64)], s: usize, t: usize) -> (u128, Vec<bool>) {
        let mut c = vec![vec![0u128; n]; n];
        for &(a, b, w) in edges {
            c[a as usize][b as usize] += w as u128;
        }
        let reach = |c: &Vec<Vec<u128>>| {
            let mut from = vec![usize::MAX; n];
            from[s] = s;
            let mut q = std::collections::VecDeque::from([s]);
            while let Some(u) = q.pop_front() {
                for v in 0..n {
                    if c[u][v] > 0 && from[v] == usize::MAX {
                        from[v] = u;
                        q.push_back(v);
                    }
                }
            }
            from
        };
        let mut flow = 0u128;
        if s == t {
            return (u128::MAX, vec![true; n]);
        }
        loop {
            let from = reach(&c);
            if from[t] == usize::MAX {
                return (flow, from.iter().map(|&f| f != usize::MAX).collect());
            }
            let mut push = u128::MAX;
            let mut v = t;
            while v != s {
                push = push.min(c[from[v]][v]);
                v = from[v];
            }
            let mut v = t;
            while v != s {
                c[from[v]][v] -= push;
                c[v][from[v]] += push;
                v = from[v];
            }
            flow += push;
        }
    }

    fn network() -> impl Strategy<Value = (usize, Vec<(u32, u32, u64)>)> {
        (2usize..=16).prop_flat_map(|n| {
            let cap = prop_oneof![3 => 0u64..=20, 1 => Just(INF)];
            let edge = (0..n as u32, 0..n as u32, cap).prop_map(|(a, b, c)| {
                // No infinite edge leaves the source, so every flow is finite.
                (a, b, if a == 0 { c.min(20) } else { c })
            });
            (Just(n), proptest::collection::vec(edge, 0..=60))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn matches_edmonds_karp((n, edges) in network(), slack in 0u64..=3, split in 0usize..=30) {
            let (s, t) = (0u32, n as u32 - 1);
            let (best, side) = reference(n, &edges, s as usize, t as usize);
            let best = u64::try_from(best).expect("finite");
            let build = |edges: &[(u32, u32, u64)]| {
                let mut f = Network::new(n);
                for &(a, b, c) in edges {
                    f.add_edge(a, b, c);
                }
                f
            };
            let mut f = build(&edges);
            prop_assert_eq!(f.max_flow(s, t, u64::MAX), best);
            prop_assert_eq!(f.source_side(s), side.clone());
            // A limit: exactly the limit once the flow reaches it.
            let limit = best.saturating_sub(1) + slack;
            prop_assert_eq!(build(&edges).max_flow(s, t, limit), best.min(limit));
            // Given up after one phase: never more than the maximum.
            let calls = std::cell::Cell::new(0);
            let (part, finished) = build(&edges).max_flow_until(s, t, u64::MAX, &|| {
                calls.set(calls.get() + 1);
                calls.get() > 1
            });
            prop_assert!(part <= best);
            prop_assert!(!finished || part == best);
            // Edges added after a flow: the flow goes on from the residual graph.
            let k = split.min(edges.len());
            let mut g = build(&edges[..k]);
            let first = g.max_flow(s, t, u64::MAX);
            // And a node no edge touches.
            prop_assert_eq!(g.add_node(), n as u32);
            for &(a, b, c) in &edges[k..] {
                g.add_edge(a, b, c);
            }
            prop_assert_eq!(first + g.max_flow(s, t, u64::MAX), best);
            let mut side_plus = side.clone();
            side_plus.push(false);
            prop_assert_eq!(g.source_side(s), side_plus);
            // The same network emptied and built again, node by node (as the cut bound reuses
            // one).
            let (rest, rest_side) = reference(n, &edges[k..], s as usize, t as usize);
            g.reset(1);
            for _ in 1..n {
                g.add_node();
            }
            for &(a, b, c) in &edges[k..] {
                g.add_edge(a, b, c);
            }
            prop_assert_eq!(g.max_flow(s, t, u64::MAX) as u128, rest);
            prop_assert_eq!(g.source_side(s), rest_side);
        }
    }
}
