//! Maximum flow (minimum cut) by Dinic's algorithm: E. A. Dinic, "Algorithm for solution of a
//! problem of maximum flow in networks with power estimation", Soviet Math. Doklady 11, 1970.
//! Capacities are u64; the depth-first phase keeps its own stack (no recursion).

/// A flow network built edge by edge.
#[derive(Clone, Debug, Default)]
pub struct Network {
    head: Vec<u32>,
    next: Vec<u32>,
    to: Vec<u32>,
    cap: Vec<u64>,
}

const NONE: u32 = u32::MAX;

/// A capacity no cut pays: larger than any sum of finite capacities used here (a graph's
/// sizes sum to at most u64::MAX, checked on validation), yet safe to add a few of.
pub const INF: u64 = u64::MAX / 4;

impl Network {
    pub fn new(nodes: usize) -> Network {
        Network {
            head: vec![NONE; nodes],
            ..Network::default()
        }
    }

    /// Empties the network and gives it `nodes` nodes, keeping its allocations (for callers
    /// that build many networks one after another).
    pub fn reset(&mut self, nodes: usize) {
        self.head.clear();
        self.head.resize(nodes, NONE);
        self.next.clear();
        self.to.clear();
        self.cap.clear();
    }

    pub fn nodes(&self) -> usize {
        self.head.len()
    }

    /// Adds an edge `from -> to` of capacity `cap` (and its residual twin).
    pub fn add_edge(&mut self, from: u32, to: u32, cap: u64) {
        for (a, b, c) in [(from, to, cap), (to, from, 0)] {
            self.next.push(self.head[a as usize]);
            self.head[a as usize] = self.to.len() as u32;
            self.to.push(b);
            self.cap.push(c);
        }
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
        let n = self.nodes();
        let mut flow = 0u64;
        let mut level = vec![u32::MAX; n];
        let mut queue = Vec::with_capacity(n);
        let mut iter = vec![NONE; n];
        // The current path as edge indices.
        let mut path: Vec<u32> = Vec::new();
        while flow < limit {
            if stop() {
                return (flow, false);
            }
            // Levels by breadth-first search over edges with capacity left.
            level.fill(u32::MAX);
            level[s as usize] = 0;
            queue.clear();
            queue.push(s);
            let mut qi = 0;
            while qi < queue.len() {
                let u = queue[qi];
                qi += 1;
                let mut e = self.head[u as usize];
                while e != NONE {
                    let v = self.to[e as usize];
                    if self.cap[e as usize] > 0 && level[v as usize] == u32::MAX {
                        level[v as usize] = level[u as usize] + 1;
                        queue.push(v);
                    }
                    e = self.next[e as usize];
                }
            }
            if level[t as usize] == u32::MAX {
                break;
            }
            iter.copy_from_slice(&self.head);
            // Blocking flow: advance along level-increasing edges, retreat from dead ends.
            path.clear();
            let mut u = s;
            loop {
                if u == t {
                    let push = path
                        .iter()
                        .map(|&e| self.cap[e as usize])
                        .min()
                        .unwrap_or(0)
                        .min(limit - flow);
                    for &e in &path {
                        self.cap[e as usize] -= push;
                        self.cap[(e ^ 1) as usize] += push;
                    }
                    flow += push;
                    if flow >= limit {
                        return (flow, true);
                    }
                    // Back to the tail of the first saturated edge.
                    let k = path
                        .iter()
                        .position(|&e| self.cap[e as usize] == 0)
                        .unwrap_or(0);
                    path.truncate(k);
                    u = if k == 0 {
                        s
                    } else {
                        self.to[path[k - 1] as usize]
                    };
                    continue;
                }
                let mut advanced = false;
                while iter[u as usize] != NONE {
                    let e = iter[u as usize];
                    let v = self.to[e as usize];
                    if self.cap[e as usize] > 0 && level[v as usize] == level[u as usize] + 1 {
                        path.push(e);
                        u = v;
                        advanced = true;
                        break;
                    }
                    iter[u as usize] = self.next[e as usize];
                }
                if advanced {
                    continue;
                }
                // Dead end: no flow through u in this phase.
                level[u as usize] = u32::MAX;
                match path.pop() {
                    None => break,
                    Some(e) => {
                        u = self.to[(e ^ 1) as usize];
                        iter[u as usize] = self.next[iter[u as usize] as usize];
                    }
                }
            }
        }
        (flow, true)
    }
}

impl Network {
    /// The nodes on the source side of a minimum cut: those reachable from `s` along edges with
    /// capacity left. Meaningful after [`Network::max_flow`] returned less than its limit (the
    /// flow is then maximum).
    pub fn source_side(&self, s: u32) -> Vec<bool> {
        let mut seen = vec![false; self.nodes()];
        seen[s as usize] = true;
        let mut stack = vec![s];
        while let Some(u) = stack.pop() {
            let mut e = self.head[u as usize];
            while e != NONE {
                let v = self.to[e as usize];
                if self.cap[e as usize] > 0 && !seen[v as usize] {
                    seen[v as usize] = true;
                    stack.push(v);
                }
                e = self.next[e as usize];
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn disconnected_has_no_flow() {
        let mut f = Network::new(3);
        f.add_edge(0, 1, 5);
        assert_eq!(f.max_flow(0, 2, u64::MAX), 0);
    }
}
