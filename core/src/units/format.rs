//! Human-readable byte counts (binary units, as the seed reports quote them). A leaf: the
//! error messages use it, and parsing (in `units`) returns those errors.

/// Formats bytes in binary units with two decimals, e.g. `5.50 MiB`, `0.75 MiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    // A unit is used from half of it up, so 0.75 MiB reads as the seed reports quote it.
    if bytes < 512 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 512.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.2} {}", UNITS[unit])
}

/// Formats a signed byte difference, e.g. `+0.75 MiB` or `-2.00 MiB`.
pub fn format_bytes_signed(delta: i128) -> String {
    let sign = if delta < 0 { "-" } else { "+" };
    let magnitude = u64::try_from(delta.unsigned_abs()).unwrap_or(u64::MAX);
    format!("{sign}{}", format_bytes(magnitude))
}
