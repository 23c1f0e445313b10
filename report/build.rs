//! Embeds the web view's report template (`www/dist/report.html`, built by
//! `scripts/build.d/50-web.sh`, which inlines the wasm planner and the view's scripts) for
//! `peakorder report` and `peakorder.report_html`. When the web bundle has not been built, an
//! empty template is embedded and a report says at run time how to build it, so the CLI and the
//! Python extension still build without Node.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let www = manifest.join("../www");
    let built = www.join("dist/report.html");
    // A directory: cargo reruns this when any file under www/ changes, dist/ included, and a
    // directory that exists never makes it rerun needlessly.
    println!("cargo:rerun-if-changed={}", www.display());
    let template = std::fs::read(&built).unwrap_or_default();
    std::fs::write(out.join("report-template.html"), template).expect("write to OUT_DIR");
}
