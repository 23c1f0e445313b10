//! How many states the exact search needs to prove each graph of a family optimal: a measure of
//! the search's pruning that machine load does not change (unlike milliseconds). For each seed:
//! the best heuristic's peak (the incumbent `auto` gives the search), the bound at the root, the
//! optimum (when proven within the state cap), the states expanded and the CPU time.
//!
//! Run: `cargo bench -p peakorder --bench states [family substring] [--seeds=A..B]
//! [--max-states=N] [--quiet] [--dump=SEED]` (`--quiet` prints only seeds that need over 10,000
//! states; `--dump` prints that seed's graph and its best order's memory at each step).

mod common;

use common::cpu_ms;
use peakorder::format::GraphSpec;
use peakorder::generators::{small, Rng};
use peakorder::order::auto::heuristic_candidates;
use peakorder::order::exact::exact_search;
use peakorder::{Budget, Graph, NoClock};

type Family = (&'static str, fn(&mut Rng) -> Graph);

/// A small random family's graph (valid by construction).
fn small_graph(spec: GraphSpec) -> Graph {
    Graph::from_spec(spec).expect("generated graph is valid")
}

/// Prints the graph one op per line: reads and makes (storage id and size), workspace.
fn dump(g: &Graph) {
    let name = |t: u32| format!("{}({})", g.tensors()[t as usize].id, g.size(t));
    for v in 0..g.num_ops() as u32 {
        let reads: Vec<String> = g.reads(v).iter().map(|&t| name(t)).collect();
        let made: Vec<String> = g.creates(v).iter().map(|&t| name(t)).collect();
        println!(
            "{}: {} -> {} ws {}",
            g.ops()[v as usize].id,
            reads.join(" "),
            made.join(" "),
            g.workspace(v),
        );
    }
    let outs: Vec<String> = g.outputs().iter().map(|&t| name(t)).collect();
    println!("outputs: {}; inputs {}", outs.join(" "), g.inputs_bytes());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(&format!("--{name}=")).map(str::to_string))
    };
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    let (lo, hi): (u64, u64) = opt("seeds")
        .map(|s| {
            let (a, b) = s.split_once("..").expect("--seeds=A..B");
            (a.parse().expect("A"), b.parse().expect("B"))
        })
        .unwrap_or((0, 40));
    let max_states: u64 = opt("max-states").map_or(2_000_000, |s| s.parse().expect("N"));
    let quiet = args.iter().any(|a| a == "--quiet");
    let families: [Family; 6] = [
        ("series-parallel", |r| {
            small_graph(small::series_parallel(r, 60))
        }),
        ("sp-pinned", |r| {
            small_graph(small::sp_pinned_outputs(r, 60))
        }),
        ("random", |r| small_graph(small::dag(r, 60))),
        ("layered", |r| small_graph(small::layered(r, 60))),
        ("uniform", |r| small_graph(small::uniform_dag(r, 60))),
        ("wide-layered", |r| small_graph(small::wide_layered(r, 60))),
    ];
    for (label, make) in families {
        if filter.as_ref().is_some_and(|f| !label.contains(f.as_str())) {
            continue;
        }
        if !quiet {
            println!("| {label} seed | heuristic | root bound | optimum | states | ms |");
            println!("|---:|---:|---:|---:|---:|---:|");
        }
        let mut states = Vec::new();
        let mut unproven = 0;
        for seed in lo..hi {
            // The same seeds as the `optimal` bench's families.
            let g = make(&mut Rng::with_state(seed * 7919 + 13));
            if opt("dump").is_some_and(|d| d == seed.to_string()) {
                dump(&g);
            }
            let inc = heuristic_candidates(&g).remove(0);
            let root = peakorder::order::exact::part_lower_bound(&g);
            let budget = Budget::new(&NoClock, None, max_states);
            let t = cpu_ms();
            let r = exact_search(&g, &budget, inc.1.clone());
            let ms = cpu_ms() - t;
            g.check_order(&r.order).expect("valid order");
            if opt("dump").is_some_and(|d| d == seed.to_string()) {
                let sim = peakorder::simulate(&g, &r.order).expect("valid");
                for st in &sim.steps {
                    print!("{}:{}/{} ", st.op, st.during_bytes, st.after_bytes);
                }
                println!();
            }
            assert_eq!(peakorder::peak_of(&g, &r.order), r.peak);
            if r.optimal {
                states.push(r.states);
            } else {
                unproven += 1;
            }
            if !quiet || r.states > 10_000 {
                println!(
                    "| {seed} | {} | {root} | {} | {} | {ms:.1} |",
                    inc.0,
                    if r.optimal {
                        r.peak.to_string()
                    } else {
                        format!("≤{} (≥{})", r.peak, r.lower_bound)
                    },
                    r.states
                );
            }
        }
        let n = hi - lo;
        let within = |k: u64| states.iter().filter(|&&s| s <= k).count();
        println!(
            "{label}: {n} seeds; proven within 1k {} / 10k {} / 20k {} / 40k {} / {max_states} {}; \
             unproven {unproven}; states over the proven {}",
            within(1_000),
            within(10_000),
            within(20_000),
            within(40_000),
            states.len(),
            states.iter().sum::<u64>()
        );
        println!();
    }
}
