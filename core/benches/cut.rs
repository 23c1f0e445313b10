//! The cut bound's maximum flows (core/src/bounds/cut.rs): per graph, the whole-graph cut
//! scan ([`cut_bound`]) and branching-style re-solves (the kept cuts' ops again with one to
//! three precedence arcs added, each ruling a minimising downset out), with flows, CPU ms and
//! flows/s, and a hash of every result (cut bytes and minimising downsets) so two builds can be
//! checked to give the same bounds.
//!
//! `cargo bench -p peakorder --bench cut -- [--dir DIR] [--only S1,S2,...] [--resolves N]`
//!
//! DIR defaults to /work/corpus, else `$PEAKORDER_CORPUS`; give it as an absolute path (cargo
//! runs benches in core/). The order whose memory bounds each op's cut from above is the best of
//! the greedy, Inductor and XLA orders (deterministic: the same flows every run, so the hashes
//! of two builds can be compared). "build" is the part of a flow's time spent making its
//! network (the same calls stopped before the first phase); "new ms" is one `CutNetwork::new`.

use peakorder::bounds::cut::{cut_bound, during_in, CutNetwork};
use peakorder::{lower_bound, plan, Graph, Method, NoClock, OpIx, PlanOptions};

#[path = "common/mod.rs"]
mod common;
use common::cpu_ms;

const DEFAULT: &[&str] = &[
    "torch-train-resnet50",
    "torch-train-googlenet",
    "torch-train-convnext_tiny",
    "torch-train-mnasnet1_0",
    "jax-train-resnet50",
    "wf-montage-dss-10d-001",
    "wf-rnaseq-001",
    "wf-bwa-large-001",
    "wf-seismology-1100p-001",
];

/// Cuts the scan keeps (as the proof search does).
const KEEP: usize = 8;

/// FNV-1a over words.
struct Hash(u64);
impl Hash {
    fn add(&mut self, x: u64) {
        for b in x.to_le_bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// Whether `to` can be reached from `from` along the network's successor arcs.
fn reaches(net: &CutNetwork, n: usize, from: OpIx, to: OpIx) -> bool {
    let mut seen = vec![false; n];
    let mut stack = vec![from];
    seen[from as usize] = true;
    while let Some(u) = stack.pop() {
        if u == to {
            return true;
        }
        for &w in net.succs(u) {
            if !seen[w as usize] {
                seen[w as usize] = true;
                stack.push(w);
            }
        }
    }
    false
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |f: &str| common::arg_value(&args, f);
    let dir = value("--dir")
        .or_else(|| std::env::var("PEAKORDER_CORPUS").ok())
        .unwrap_or_else(|| "/work/corpus".to_string());
    let names: Vec<String> = value("--only").map_or_else(
        || DEFAULT.iter().map(|s| s.to_string()).collect(),
        |s| s.split(',').map(str::to_string).collect(),
    );
    let resolves: usize = value("--resolves").map_or(24, |s| s.parse().expect("--resolves N"));
    println!(
        "| graph | ops | scan flows | scan ms | build % | flows/s | bound | re-solve flows | re-solve ms | flows/s | hash | new ms |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
    let (mut all_flows, mut all_ms) = (0usize, 0.0f64);
    for name in &names {
        let path = format!("{dir}/{name}.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("{path}: not found, skipped");
            continue;
        };
        let g = Graph::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let n = g.num_ops();
        // The best of three quick deterministic orders (no clock: the same scan every run).
        let p = [Method::Greedy, Method::Inductor, Method::Xla]
            .iter()
            .map(|&method| {
                let opts = PlanOptions {
                    method,
                    ..PlanOptions::default()
                };
                plan(&g, &opts, &NoClock).expect("the heuristics plan every graph")
            })
            .min_by_key(|p| p.peak_bytes)
            .expect("three plans");
        let upper = during_in(&g, &p.order_ix);
        let floor = lower_bound(&g);
        let never = || false;
        let mut h = Hash(0xcbf2_9ce4_8422_2325);

        // Building the network (once per node of the proof search), best of three.
        let mut new_ms = f64::INFINITY;
        for _ in 0..3 {
            let t = cpu_ms();
            std::hint::black_box(CutNetwork::new(&g, &[]));
            new_ms = new_ms.min(cpu_ms() - t);
        }
        // The scan, best of three.
        let net = CutNetwork::new(&g, &[]);
        let mut scan_ms = f64::INFINITY;
        let mut c = None;
        for _ in 0..3 {
            let t = cpu_ms();
            let r = cut_bound(&g, &net, &upper, floor, KEEP, &never);
            scan_ms = scan_ms.min(cpu_ms() - t);
            c = Some(r);
        }
        let c = c.expect("ran");
        h.add(c.bytes);
        for (v, k) in &c.cuts {
            h.add(*v as u64);
            h.add(k.bytes);
            k.before.iter().for_each(|&w| h.add(w));
        }
        // The same ops' networks, stopped before the flow.
        let t = cpu_ms();
        for (v, _) in &c.cuts {
            net.during_until(&g, *v, &[], upper[*v as usize] + 1, &|| true);
        }
        let build_each = (cpu_ms() - t) / c.cuts.len().max(1) as f64;
        let build_pct = 100.0 * build_each * c.flows as f64 / scan_ms.max(1e-9);

        // Re-solves: each with 1 to 3 arcs "v before y", y an op of v's minimising downset
        // that v does not already follow.
        let mut re_flows = 0usize;
        let mut re_ms = 0.0f64;
        for i in 0..resolves {
            let mut arcs: Vec<(OpIx, OpIx)> = Vec::new();
            for j in 0..(1 + i % 3) {
                let (v, k) = &c.cuts[(i + j) % c.cuts.len().max(1)];
                let probe = CutNetwork::new(&g, &arcs);
                let in_d: Vec<OpIx> = (0..n as OpIx)
                    .filter(|&y| peakorder::bounds::cut::has(&k.before, y))
                    .collect();
                // Start at a different op of D each time, take the first one allowed.
                let m = in_d.len();
                for s in 0..m {
                    let y = in_d[(s + i * 7919) % m];
                    if y != *v && !reaches(&probe, n, y, *v) && !arcs.contains(&(*v, y)) {
                        arcs.push((*v, y));
                        break;
                    }
                }
            }
            let t = cpu_ms();
            let net = CutNetwork::new(&g, &arcs);
            for (v, _) in &c.cuts {
                let r = net.during(&g, *v, &[], upper[*v as usize].saturating_add(1));
                re_flows += 1;
                h.add(r.bytes);
                if let Some(b) = &r.before {
                    for (w, &x) in b.iter().enumerate() {
                        if x {
                            h.add(w as u64);
                        }
                    }
                }
            }
            re_ms += cpu_ms() - t;
        }
        all_flows += c.flows + re_flows;
        all_ms += scan_ms + re_ms;
        println!(
            "| {name} | {n} | {} | {scan_ms:.2} | {build_pct:.0} | {:.0} | {} | {re_flows} | {re_ms:.2} | {:.0} | {:016x} | {new_ms:.3} |",
            c.flows,
            c.flows as f64 / scan_ms.max(1e-9) * 1e3,
            c.bytes,
            re_flows as f64 / re_ms.max(1e-9) * 1e3,
            h.0
        );
    }
    println!();
    println!(
        "all: {all_flows} flows in {all_ms:.1} ms, {:.0} flows/s",
        all_flows as f64 / all_ms.max(1e-9) * 1e3
    );
}
