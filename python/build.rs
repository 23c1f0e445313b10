//! On macOS an extension module must leave Python's symbols to be resolved when it is loaded
//! (`-undefined dynamic_lookup`); maturin passes that itself, a plain `cargo build` needs it here.
fn main() {
    pyo3_build_config::add_extension_module_link_args();
}
