//! The plan as plain text: the CLI's `peakorder plan` table, which is also the report page's
//! text for readers without JavaScript.

use peakorder::units::{format_bytes, format_bytes_signed};
use peakorder::Plan;

/// Milliseconds for tables: two decimals below 10 ms, whole milliseconds above.
pub fn format_ms(x: f64) -> String {
    if x < 10.0 {
        format!("{x:.2} ms")
    } else {
        format!("{x:.0} ms")
    }
}

/// "5.50 MiB (+2.75 MiB above inputs)"
pub fn peak_text(peak: u64, inputs: u64) -> String {
    format!(
        "{} ({} above inputs)",
        format_bytes(peak),
        format_bytes_signed(peak as i128 - inputs as i128)
    )
}

/// The plan as `peakorder plan` prints it without `--json`.
pub fn plan_text(plan: &Plan) -> String {
    let mut s = String::new();
    let line = |s: &mut String, k: &str, v: String| s.push_str(&format!("{k:<16}{v}\n"));
    line(&mut s, "method", plan.method.clone());
    line(
        &mut s,
        "peak",
        peak_text(plan.peak_bytes, plan.inputs_bytes),
    );
    line(&mut s, "inputs", format_bytes(plan.inputs_bytes));
    line(
        &mut s,
        "lower bound",
        format!(
            "{} ({})",
            format_bytes(plan.lower_bound_bytes),
            plan.lower_bound_by
        ),
    );
    let proof = if plan.optimal {
        format!(
            "yes (proven: {})",
            plan.proof.unwrap_or(plan.lower_bound_by)
        )
    } else {
        format!(
            "not proven (gap to lower bound {})",
            format_bytes(plan.peak_bytes - plan.lower_bound_bytes)
        )
    };
    line(&mut s, "optimal", proof);
    line(
        &mut s,
        "program order",
        match plan.program_order_peak_bytes {
            Some(p) => peak_text(p, plan.inputs_bytes),
            None => "not a valid order".into(),
        },
    );
    line(&mut s, "planning time", format_ms(plan.elapsed_ms));
    line(
        &mut s,
        &format!("order ({} ops)", plan.order.len()),
        plan.order.join(" "),
    );
    s
}
