mod order_gen;
use order_gen::*;
use peakorder::format::GraphSpec;
use peakorder::order::auto::auto_order;
use peakorder::plan::Budget;
use peakorder::Graph;
use peakorder::NoClock;
fn spec_of(g: &Graph, tag: &str) -> GraphSpec {
    let mut s: GraphSpec =
        GraphSpec::from_json(&serde_json::to_string(&to_json(g)).unwrap()).unwrap();
    for t in &mut s.tensors {
        t.id = format!("{tag}{}", t.id);
        if let Some(a) = &mut t.alias_of {
            *a = format!("{tag}{a}");
        }
    }
    for o in &mut s.ops {
        o.id = format!("{tag}{}", o.id);
        for i in &mut o.inputs {
            *i = format!("{tag}{i}");
        }
        for i in &mut o.outputs {
            *i = format!("{tag}{i}");
        }
    }
    for o in &mut s.outputs {
        *o = format!("{tag}{o}");
    }
    s
}
fn to_json(g: &Graph) -> serde_json::Value {
    let tensors: Vec<_> = g
        .tensors()
        .iter()
        .map(|t| {
            let mut m = serde_json::Map::new();
            m.insert("id".into(), t.id.clone().into());
            match t.alias_of {
                Some(a) => {
                    m.insert("alias_of".into(), g.tensors()[a as usize].id.clone().into());
                }
                None => {
                    m.insert("bytes".into(), t.bytes.into());
                }
            }
            if t.donated {
                m.insert("donated".into(), true.into());
            }
            serde_json::Value::Object(m)
        })
        .collect();
    let ops: Vec<_> = g.ops().iter().map(|o| serde_json::json!({"id": o.id, "inputs": o.inputs.iter().map(|&t| g.tensors()[t as usize].id.clone()).collect::<Vec<_>>(), "outputs": o.outputs.iter().map(|&t| g.tensors()[t as usize].id.clone()).collect::<Vec<_>>(), "workspace": o.workspace})).collect();
    let outs: Vec<_> = g
        .outputs()
        .iter()
        .map(|&t| g.tensors()[t as usize].id.clone())
        .collect();
    serde_json::json!({"tensors": tensors, "ops": ops, "outputs": outs})
}
#[test]
fn dbg() {
    for kind in 0..3 {
        let mut proven = 0;
        let mut states_all: Vec<u64> = vec![];
        for seed in 0..20u64 {
            let mut parts = vec![];
            for c in 0..3 {
                let mut r = Rng::new(seed * 31 + c);
                let g = match kind {
                    0 => dag(&mut r, 20),
                    1 => series_parallel(&mut r, 20),
                    _ => layered(&mut r, 20),
                };
                parts.push(spec_of(&g, &format!("c{c}_")));
            }
            let mut s = parts.remove(0);
            for p in parts {
                s.tensors.extend(p.tensors);
                s.ops.extend(p.ops);
                s.outputs.extend(p.outputs);
            }
            let g = Graph::from_spec(s).unwrap();
            let budget = Budget::new(&NoClock, None, 20000);
            let o = auto_order(&g, &budget);
            if o.proven_optimal {
                proven += 1
            }
            let _ = &mut states_all;
        }
        println!("kind {kind}: 3 components x 20 ops: proven {proven}/20 within 20000 states");
    }
}
#[test]
fn dump() {
    let mut r = Rng::new(26 * 7919 + 13);
    let g = series_parallel(&mut r, 60);
    std::fs::write(
        "/tmp/po/sp26.json",
        serde_json::to_string(&to_json(&g)).unwrap(),
    )
    .unwrap();
}
#[test]
fn dump_hard() {
    use peakorder::{plan, Clock, Method, PlanOptions};
    struct C(std::time::Instant);
    impl Clock for C {
        fn now_ms(&self) -> f64 {
            self.0.elapsed().as_secs_f64() * 1e3
        }
    }
    for seed in 0..5u64 {
        let mut r = Rng::new(seed + 500);
        let g = series_parallel(&mut r, 150);
        let p = plan(
            &g,
            &PlanOptions {
                method: Method::Auto,
                budget_ms: Some(5000.0),
                max_states: u64::MAX,
            },
            &C(std::time::Instant::now()),
        )
        .unwrap();
        println!(
            "seed {seed}: peak {} lb {} opt {} {}ms",
            p.peak_bytes, p.lower_bound_bytes, p.optimal, p.elapsed_ms
        );
        if !p.optimal && p.peak_bytes > p.lower_bound_bytes + 10 {
            std::fs::write(
                "/tmp/po/sp150.json",
                serde_json::to_string(&to_json(&g)).unwrap(),
            )
            .unwrap();
            break;
        }
    }
}
