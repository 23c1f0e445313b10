//! MiniMalloc's fixed-interval CSV (github.com/google/minimalloc): a header naming the columns,
//! then one buffer per line, `id,lower,upper,size`, the lifetime half-open (`[lower, upper)`).
//! MiniMalloc's alternative column names are accepted (`buffer`/`buffer_id` for `id`,
//! `start`/`begin` for `lower`, `end` for `upper`), and an `offset` column (its output format) is
//! read and ignored, so a solved file can be laid out again. Pure parsing: the caller reads the
//! text.
//!
//! Every error names its line (1 is the header): a missing or unknown column, a field that is not
//! a whole number (negative, fractional, or above 2^64 - 1), an empty lifetime (`lower >= upper`),
//! a duplicate id, or sizes that together overflow 64 bits.

use std::collections::HashMap;

use super::problem::Buffer;
use crate::error::Error;

/// A parsed CSV: ids and buffers, in file order, with the line each came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intervals {
    /// Each buffer's id.
    pub ids: Vec<String>,
    /// Each buffer's lifetime and size.
    pub buffers: Vec<Buffer>,
    /// Each buffer's line in the file (1 is the header).
    pub lines: Vec<usize>,
}

fn bad(line: usize, reason: impl Into<String>) -> Error {
    Error::BadCsv {
        line,
        reason: reason.into(),
    }
}

fn number(line: usize, column: &str, field: &str) -> Result<u64, Error> {
    field.parse::<u64>().map_err(|_| {
        let why = if field.is_empty() {
            "is empty".to_string()
        } else if field.starts_with('-') && field[1..].bytes().all(|c| c.is_ascii_digit()) {
            format!("is negative ({field})")
        } else if field.bytes().all(|c| c.is_ascii_digit()) {
            format!("does not fit in 64 bits ({field})")
        } else {
            format!("is not a whole number ({})", crate::error::show_id(field))
        };
        bad(line, format!("{column} {why}"))
    })
}

/// Parses MiniMalloc CSV text.
pub fn parse(text: &str) -> Result<Intervals, Error> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let Some((header_line, header)) = lines.next() else {
        return Err(bad(
            1,
            "empty file: expected a header such as id,lower,upper,size",
        ));
    };
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut col: [Option<usize>; 4] = [None; 4]; // id, lower, upper, size
    for (k, &name) in names.iter().enumerate() {
        let slot = match name {
            "id" | "buffer" | "buffer_id" => 0,
            "lower" | "start" | "begin" => 1,
            "upper" | "end" => 2,
            "size" => 3,
            "offset" => continue,
            other => {
                return Err(bad(
                    header_line,
                    format!(
                        "column {} is not supported (expected id, lower, upper, size and optionally offset)",
                        crate::error::show_id(other)
                    ),
                ))
            }
        };
        if col[slot].is_some() {
            return Err(bad(header_line, format!("column {name:?} appears twice")));
        }
        col[slot] = Some(k);
    }
    let mut cols = [0usize; 4];
    for (slot, name) in ["id", "lower", "upper", "size"].iter().enumerate() {
        cols[slot] = col[slot]
            .ok_or_else(|| bad(header_line, format!("the header has no {name} column")))?;
    }
    let mut out = Intervals {
        ids: Vec::new(),
        buffers: Vec::new(),
        lines: Vec::new(),
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut total: u64 = 0;
    for (line, row) in lines {
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        if fields.len() != names.len() {
            return Err(bad(
                line,
                format!(
                    "{} fields, but the header has {}",
                    fields.len(),
                    names.len()
                ),
            ));
        }
        let id = fields[cols[0]];
        if id.is_empty() {
            return Err(bad(line, "empty id"));
        }
        if let Some(&first) = seen.get(id) {
            return Err(bad(
                line,
                format!(
                    "id {} is used twice (first on line {first})",
                    crate::error::show_id(id)
                ),
            ));
        }
        let lower = number(line, "lower", fields[cols[1]])?;
        let upper = number(line, "upper", fields[cols[2]])?;
        let size = number(line, "size", fields[cols[3]])?;
        if lower >= upper {
            return Err(bad(
                line,
                format!(
                    "lower ({lower}) must be below upper ({upper}): lifetimes are [lower, upper)"
                ),
            ));
        }
        total = total.checked_add(size).ok_or_else(|| {
            bad(
                line,
                "the sizes up to this line add up to more than 2^64 - 1 bytes",
            )
        })?;
        seen.insert(id.to_string(), line);
        out.ids.push(id.to_string());
        out.buffers.push(Buffer { lower, upper, size });
        out.lines.push(line);
    }
    Ok(out)
}

/// MiniMalloc's output format: the input columns and each buffer's offset.
pub fn write(intervals: &Intervals, offsets: &[u64]) -> String {
    let mut s = String::from("id,lower,upper,size,offset\n");
    for (i, id) in intervals.ids.iter().enumerate() {
        let b = &intervals.buffers[i];
        s.push_str(&format!(
            "{id},{},{},{},{}\n",
            b.lower, b.upper, b.size, offsets[i]
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> (usize, String) {
        match parse(text) {
            Err(Error::BadCsv { line, reason }) => (line, reason),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_the_readme_example() {
        let p = parse("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\r\n\nb3,0,9,4\n").unwrap();
        assert_eq!(p.ids, vec!["b1", "b2", "b3"]);
        assert_eq!(
            p.buffers[1],
            Buffer {
                lower: 3,
                upper: 9,
                size: 4
            }
        );
        assert_eq!(p.lines, vec![2, 3, 5]);
        let q = parse("size,upper,offset,buffer,begin\n4,3,8,b1,0\n").unwrap();
        assert_eq!(
            q.buffers[0],
            Buffer {
                lower: 0,
                upper: 3,
                size: 4
            }
        );
        assert_eq!(write(&q, &[8]), "id,lower,upper,size,offset\nb1,0,3,4,8\n");
    }

    #[test]
    fn names_the_offending_line() {
        assert_eq!(err("").0, 1);
        assert_eq!(err("id,lower,upper\n").0, 1);
        assert!(err("id,lower,upper,size,gaps\n").1.contains("gaps"));
        let (l, r) = err("id,lower,upper,size\na,0,1,1\na,1,2,1\n");
        assert_eq!(l, 3);
        assert!(r.contains("first on line 2"), "{r}");
        let (l, r) = err("id,lower,upper,size\na,0,1,-4\n");
        assert_eq!(l, 2);
        assert!(r.contains("negative"), "{r}");
        assert!(err("id,lower,upper,size\na,0,1,99999999999999999999\n")
            .1
            .contains("64 bits"));
        assert!(err("id,lower,upper,size\na,0,1,1.5\n")
            .1
            .contains("whole number"));
        let (l, r) = err("id,lower,upper,size\na,0,1,1\nb,5,5,1\n");
        assert_eq!(l, 3);
        assert!(r.contains("below upper"), "{r}");
        let big = u64::MAX / 2 + 1;
        let (l, _) = err(&format!("id,lower,upper,size\na,0,1,{big}\nb,0,1,{big}\n"));
        assert_eq!(l, 3);
        assert_eq!(err("id,lower,upper,size\na,0,1\n").0, 2);
    }
}
