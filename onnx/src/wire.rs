//! The protobuf wire format, just enough to walk a message's top-level fields without decoding
//! them: each field's number and the byte range it occupies (key, length prefix and payload), so
//! that a caller can move fields while copying every other byte as it is.

/// One field of a message: its number, wire type, where it starts (its key) and ends, and for
/// length-delimited fields where the payload starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    pub number: u64,
    pub wire_type: u8,
    pub start: usize,
    pub payload: usize,
    pub end: usize,
}

/// A varint at `at`: its value and the offset after it.
fn varint(b: &[u8], mut at: usize) -> Result<(u64, usize), String> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let byte = *b
            .get(at)
            .ok_or_else(|| format!("a varint runs past the end at byte {at}"))?;
        at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok((v, at));
        }
    }
    Err(format!("a varint longer than 10 bytes ends at byte {at}"))
}

/// The top-level fields of the message in `b`, in order (iterative: one level only). Groups
/// (wire types 3 and 4, unused by ONNX) are refused.
pub fn fields(b: &[u8]) -> Result<Vec<Field>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let start = at;
        let (key, next) = varint(b, at)?;
        let (number, wire_type) = (key >> 3, (key & 7) as u8);
        if number == 0 {
            return Err(format!("field number 0 at byte {start}"));
        }
        let (payload, end) = match wire_type {
            0 => (next, varint(b, next)?.1),
            1 => (next, next + 8),
            5 => (next, next + 4),
            2 => {
                let (len, p) = varint(b, next)?;
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|l| p.checked_add(l))
                    .ok_or_else(|| format!("field {number} at byte {start} is too long"))?;
                (p, end)
            }
            w => return Err(format!("field {number} at byte {start} has wire type {w}")),
        };
        if end > b.len() {
            return Err(format!(
                "field {number} at byte {start} runs past the end ({end} > {})",
                b.len()
            ));
        }
        out.push(Field {
            number,
            wire_type,
            start,
            payload,
            end,
        });
        at = end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_each_wire_type_and_refuses_truncation() {
        // 1: varint 300; 2: "ab"; 3: fixed32; 4: fixed64.
        let b = [
            0x08, 0xac, 0x02, 0x12, 2, b'a', b'b', 0x1d, 1, 2, 3, 4, 0x21, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let f = fields(&b).unwrap();
        let spans: Vec<_> = f
            .iter()
            .map(|f| (f.number, f.start, f.payload, f.end))
            .collect();
        assert_eq!(
            spans,
            [(1, 0, 1, 3), (2, 3, 5, 7), (3, 7, 8, 12), (4, 12, 13, 21)]
        );
        for cut in 1..b.len() {
            if ![3, 7, 12].contains(&cut) {
                assert!(fields(&b[..cut]).is_err(), "cut at {cut}");
            }
        }
        assert!(fields(&[0x0b]).is_err(), "a group");
        assert!(fields(&[0x00, 0x00]).is_err(), "field 0");
    }
}
