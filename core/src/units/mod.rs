//! Byte counts: formatted for people ([`format`]) and parsed from them ([`parse_bytes`]).

pub mod format;

pub use format::{format_bytes, format_bytes_signed};

/// Parses a byte count: a whole number of bytes (`1048576`), or a number with a unit, binary
/// (`KiB MiB GiB TiB`) or decimal (`kB KB MB GB TB`), with or without a space (`64MiB`,
/// `1.5 GiB`). A fractional count is rounded down to whole bytes.
///
/// ```
/// use peakorder::units::parse_bytes;
/// assert_eq!(parse_bytes("64MiB").unwrap(), 64 << 20);
/// assert_eq!(parse_bytes("1.5 GiB").unwrap(), 3 << 29);
/// assert_eq!(parse_bytes("2GB").unwrap(), 2_000_000_000);
/// assert_eq!(parse_bytes("4096").unwrap(), 4096);
/// assert_eq!(parse_bytes("-1MiB").unwrap_err().code(), "bad_limit");
/// ```
pub fn parse_bytes(text: &str) -> Result<u64, crate::Error> {
    let bad = |reason: &str| crate::Error::BadLimit {
        value: text.to_string(),
        reason: reason.to_string(),
    };
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = (&t[..split], t[split..].trim());
    if num.is_empty() {
        return Err(bad(
            "expected a non-negative number of bytes, optionally with a unit (64MiB, 8GiB, 1048576)",
        ));
    }
    let scale: u64 = match unit {
        "" | "B" | "b" => 1,
        "KiB" | "Ki" | "K" | "k" => 1 << 10,
        "MiB" | "Mi" | "M" => 1 << 20,
        "GiB" | "Gi" | "G" => 1 << 30,
        "TiB" | "Ti" | "T" => 1 << 40,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        _ => {
            return Err(bad(
                "unknown unit; expected B, KiB, MiB, GiB, TiB, kB, MB, GB or TB",
            ))
        }
    };
    if let Ok(n) = num.parse::<u64>() {
        return n
            .checked_mul(scale)
            .ok_or_else(|| bad("does not fit in u64"));
    }
    let x: f64 = num.parse().map_err(|_| bad("not a number"))?;
    let bytes = (x * scale as f64).floor();
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(bad("does not fit in u64"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(parse_bytes("0").unwrap(), 0);
        assert_eq!(parse_bytes(" 8GiB ").unwrap(), 8 << 30);
        assert_eq!(parse_bytes("0.75 MiB").unwrap(), 786_432);
        for bad in [
            "",
            "MiB",
            "1.2.3",
            "12 parsecs",
            "-5",
            "nan",
            "1e3",
            "99999999999999999999",
        ] {
            assert_eq!(parse_bytes(bad).unwrap_err().code(), "bad_limit", "{bad}");
        }
    }

    #[test]
    fn formats() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(511), "511 B");
        assert_eq!(format_bytes(1023), "1.00 KiB");
        assert_eq!(format_bytes(786_432), "0.75 MiB");
        assert_eq!(format_bytes(5_767_168), "5.50 MiB");
        assert_eq!(format_bytes(3 << 30), "3.00 GiB");
        assert_eq!(format_bytes_signed(-(786_432)), "-0.75 MiB");
    }
}
