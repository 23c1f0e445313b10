//! Plain-text tables with aligned columns.

/// A table: a header row and data rows, printed with columns padded to fit.
pub struct Table {
    rows: Vec<Vec<String>>,
    right: Vec<bool>,
}

impl Table {
    /// `columns` are (title, right-aligned).
    pub fn new(columns: &[(&str, bool)]) -> Self {
        Table {
            rows: vec![columns.iter().map(|c| c.0.to_string()).collect()],
            right: columns.iter().map(|c| c.1).collect(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let n = self.right.len();
        let widths: Vec<usize> = (0..n)
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for (k, r) in self.rows.iter().enumerate() {
            let cells: Vec<String> = (0..n)
                .map(|i| {
                    let c = r.get(i).map_or("", |s| s.as_str());
                    let pad = widths[i] - c.chars().count();
                    if self.right[i] {
                        format!("{}{c}", " ".repeat(pad))
                    } else {
                        format!("{c}{}", " ".repeat(pad))
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
            if k == 0 {
                let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
                out.push_str(&rule.join("  "));
                out.push('\n');
            }
        }
        out
    }
}

/// Milliseconds for humans (the same text as the report page).
pub use peakorder_report::format_ms as ms;
