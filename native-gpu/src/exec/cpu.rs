//! The CPU backend: plain f32 kernels on host buffers, and an allocator that counts the exact
//! bytes of every tensor and workspace buffer the driver asks for, so its high-water mark is the
//! simulator's peak to the byte.
//!
//! Kernels are sequential loops in a fixed order (no threads, no FMA contraction), so a given
//! op computes the same bits whenever it runs.

use std::collections::BTreeMap;

use super::{Backend, ExecError, Kernel, Slot};

/// Host buffers keyed by slot, and the byte counter. In arena mode every slot is a range of one
/// buffer of f32 words instead of a buffer of its own.
#[derive(Default)]
pub struct CpuBackend {
    /// Indexed by storage.
    storages: Vec<Option<Place>>,
    workspace: Option<Place>,
    /// The arena's words, in arena mode.
    arena: Option<Vec<f32>>,
    /// Arena ranges in use: start byte -> (end byte, slot), to refuse an overlapping placement.
    placed: BTreeMap<u64, (u64, Slot)>,
    current: u64,
    high: u64,
}

/// Where a slot's bytes are.
enum Place {
    /// Its own f32 words (the last one partly used when bytes % 4 != 0).
    Own { words: Vec<f32>, bytes: u64 },
    /// `bytes` bytes of the arena from word `word`.
    At { word: usize, bytes: u64 },
}

impl Place {
    fn bytes(&self) -> u64 {
        match self {
            Place::Own { bytes, .. } | Place::At { bytes, .. } => *bytes,
        }
    }
}

fn internal(m: impl Into<String>) -> ExecError {
    ExecError::Internal(m.into())
}

fn len(n: u64) -> Result<usize, ExecError> {
    usize::try_from(n).map_err(|_| internal(format!("{n} elements do not fit in memory")))
}

/// The first `n` words of a placement, with the arena split around the output being written.
struct Split<'a> {
    left: &'a [f32],
    right: &'a [f32],
    /// The output's word range [start, end): `left` ends at start, `right` begins at end.
    start: usize,
    end: usize,
}

impl<'a> Split<'a> {
    fn get(&self, word: usize, n: usize) -> Option<&'a [f32]> {
        if word + n <= self.start {
            self.left.get(word..word + n)
        } else if word >= self.end {
            self.right.get(word - self.end..word - self.end + n)
        } else {
            None
        }
    }
}

impl CpuBackend {
    pub fn new() -> Self {
        CpuBackend::default()
    }

    fn slot_mut(&mut self, slot: Slot) -> &mut Option<Place> {
        match slot {
            Slot::Workspace => &mut self.workspace,
            Slot::Storage(s) => {
                let i = s as usize;
                if self.storages.len() <= i {
                    self.storages.resize_with(i + 1, || None);
                }
                &mut self.storages[i]
            }
        }
    }

    fn place_of(&self, s: u32) -> Result<&Place, ExecError> {
        self.storages
            .get(s as usize)
            .and_then(|b| b.as_ref())
            .ok_or_else(|| internal(format!("storage #{s} is used but not allocated")))
    }

    /// Runs `f` with the first words of each input storage (`(storage, f32 count)`) and the
    /// first `out_words` words of output storage `out`, borrowed side by side: an output in its
    /// own buffer is taken out of the table meanwhile; an output in the arena splits the arena
    /// around it, and an input overlapping it is an error (the layout forbids it).
    fn with_io<R>(
        &mut self,
        out: u32,
        out_words: u64,
        inputs: &[(u32, u64)],
        f: impl FnOnce(&[&[f32]], &mut [f32]) -> R,
    ) -> Result<R, ExecError> {
        let out_words = len(out_words)?;
        let taken = self
            .storages
            .get_mut(out as usize)
            .and_then(Option::take)
            .ok_or_else(|| internal(format!("storage #{out} is written but not allocated")))?;
        let result = match taken {
            Place::Own { mut words, bytes } => {
                let r = (|| {
                    let mut ins = Vec::with_capacity(inputs.len());
                    for &(s, n) in inputs {
                        ins.push(self.own_input(s, len(n)?, None)?);
                    }
                    let dst = words.get_mut(..out_words).ok_or_else(|| {
                        internal(format!("storage #{out} is smaller than {out_words} f32s"))
                    })?;
                    Ok(f(&ins, dst))
                })();
                self.storages[out as usize] = Some(Place::Own { words, bytes });
                r
            }
            Place::At { word, bytes } => {
                let mut arena = self.arena.take().unwrap_or_default();
                let r = (|| {
                    if word + out_words > arena.len() {
                        return Err(internal(format!("storage #{out} runs past the arena")));
                    }
                    let (left, rest) = arena.split_at_mut(word);
                    let (dst, right) = rest.split_at_mut(out_words);
                    let split = Split {
                        left,
                        right,
                        start: word,
                        end: word + out_words,
                    };
                    let mut ins = Vec::with_capacity(inputs.len());
                    for &(s, n) in inputs {
                        ins.push(self.own_input(s, len(n)?, Some(&split))?);
                    }
                    Ok(f(&ins, dst))
                })();
                self.arena = Some(arena);
                self.storages[out as usize] = Some(Place::At { word, bytes });
                r
            }
        };
        result
    }

    /// The first `n` words of input storage `s`, from its own buffer or the split arena.
    fn own_input<'a>(
        &'a self,
        s: u32,
        n: usize,
        split: Option<&Split<'a>>,
    ) -> Result<&'a [f32], ExecError> {
        let short = || internal(format!("storage #{s} is smaller than {n} f32s"));
        match self.place_of(s)? {
            Place::Own { words, .. } => words.get(..n).ok_or_else(short),
            Place::At { word, .. } => match split {
                Some(sp) => sp.get(*word, n).ok_or_else(|| {
                    internal(format!(
                        "storage #{s} overlaps the output in the arena, or is smaller than {n} f32s"
                    ))
                }),
                None => self
                    .arena
                    .as_ref()
                    .and_then(|a| a.get(*word..*word + n))
                    .ok_or_else(short),
            },
        }
    }

    /// The bytes of a slot (its first `bytes()` bytes).
    fn slot_bytes<'a>(&'a self, place: &'a Place) -> Result<&'a [u8], ExecError> {
        let n = len(place.bytes())?;
        let words: &[f32] = match place {
            Place::Own { words, .. } => words,
            Place::At { word, .. } => self
                .arena
                .as_ref()
                .and_then(|a| a.get(*word..*word + n.div_ceil(4)))
                .ok_or_else(|| internal("a placement runs past the arena"))?,
        };
        bytemuck::cast_slice(words)
            .get(..n)
            .ok_or_else(|| internal("a buffer is smaller than its byte count"))
    }

    /// Writes `data` at the start of a slot.
    fn write_slot(&mut self, slot: Slot, data: &[u8]) -> Result<(), ExecError> {
        let (dst, bytes): (&mut [f32], u64) = match slot {
            Slot::Workspace => match self.workspace.as_mut() {
                Some(Place::Own { words, bytes }) => (words, *bytes),
                Some(Place::At { word, bytes }) => {
                    let n = len(bytes.div_ceil(4))?;
                    let a = self.arena.as_mut().ok_or_else(|| internal("no arena"))?;
                    (
                        a.get_mut(*word..*word + n)
                            .ok_or_else(|| internal("past the arena"))?,
                        *bytes,
                    )
                }
                None => return Err(internal("workspace written but not allocated")),
            },
            Slot::Storage(s) => match self.storages.get_mut(s as usize).and_then(|p| p.as_mut()) {
                Some(Place::Own { words, bytes }) => (words, *bytes),
                Some(Place::At { word, bytes }) => {
                    let n = len(bytes.div_ceil(4))?;
                    let a = self.arena.as_mut().ok_or_else(|| internal("no arena"))?;
                    (
                        a.get_mut(*word..*word + n)
                            .ok_or_else(|| internal("past the arena"))?,
                        *bytes,
                    )
                }
                None => return Err(internal(format!("{slot:?} written but not allocated"))),
            },
        };
        let bytes = len(bytes)?;
        bytemuck::cast_slice_mut::<f32, u8>(dst)
            .get_mut(..bytes.min(data.len()))
            .filter(|d| d.len() == data.len())
            .ok_or_else(|| internal(format!("{slot:?} is smaller than its data")))?
            .copy_from_slice(data);
        Ok(())
    }
}

impl Backend for CpuBackend {
    fn describe(&self) -> String {
        "cpu: f32 kernels, allocator counting exact bytes".into()
    }

    fn prepare(&mut self, _sizes: &[u64]) -> Result<(), ExecError> {
        Ok(())
    }

    fn charge(&self, bytes: u64) -> u64 {
        bytes
    }

    fn reset_peak(&mut self) -> Result<(), ExecError> {
        self.high = self.current;
        Ok(())
    }

    fn alloc(
        &mut self,
        slot: Slot,
        bytes: u64,
        _what: &dyn Fn() -> String,
    ) -> Result<(), ExecError> {
        let words = len(bytes.div_ceil(4))?;
        let entry = self.slot_mut(slot);
        if entry.is_some() {
            return Err(internal(format!("{slot:?} allocated twice")));
        }
        *entry = Some(Place::Own {
            words: vec![0.0; words],
            bytes,
        });
        self.current += bytes;
        self.high = self.high.max(self.current);
        Ok(())
    }

    fn arena_align(&self) -> Option<u64> {
        // Kernels read f32 words: every offset must be a whole number of words.
        Some(4)
    }

    fn open_arena(&mut self, bytes: u64, _what: &dyn Fn() -> String) -> Result<(), ExecError> {
        if self.arena.is_some() {
            return Err(internal("the arena is opened twice"));
        }
        self.arena = Some(vec![0.0; len(bytes.div_ceil(4))?]);
        self.placed.clear();
        self.current += bytes;
        self.high = self.high.max(self.current);
        Ok(())
    }

    fn place(&mut self, slot: Slot, offset: u64, bytes: u64) -> Result<(), ExecError> {
        let arena_bytes = self
            .arena
            .as_ref()
            .map(|a| a.len() as u64 * 4)
            .ok_or_else(|| internal(format!("{slot:?} placed with no arena")))?;
        if offset % 4 != 0 {
            return Err(internal(format!(
                "{slot:?} at offset {offset} is not f32-aligned"
            )));
        }
        let end = offset
            .checked_add(bytes.div_ceil(4) * 4)
            .filter(|&e| e <= arena_bytes)
            .ok_or_else(|| internal(format!("{slot:?} at offset {offset} runs past the arena")))?;
        if bytes > 0 {
            // The layout promised that nothing live shares these bytes: hold it to that.
            if let Some((_, &(e, other))) = self.placed.range(..=offset).next_back() {
                if e > offset {
                    return Err(internal(format!(
                        "{slot:?} overlaps {other:?} in the arena"
                    )));
                }
            }
            if let Some((&o, &(_, other))) = self.placed.range(offset..).next() {
                if o < end {
                    return Err(internal(format!(
                        "{slot:?} overlaps {other:?} in the arena"
                    )));
                }
            }
            self.placed.insert(offset, (end, slot));
        }
        let entry = self.slot_mut(slot);
        if entry.is_some() {
            return Err(internal(format!("{slot:?} placed twice")));
        }
        *entry = Some(Place::At {
            word: len(offset / 4)?,
            bytes,
        });
        Ok(())
    }

    fn free(&mut self, slot: Slot) -> Result<(), ExecError> {
        let place = self
            .slot_mut(slot)
            .take()
            .ok_or_else(|| internal(format!("{slot:?} freed but not allocated")))?;
        match place {
            Place::Own { bytes, .. } => self.current -= bytes,
            Place::At { word, bytes } => {
                if bytes > 0 {
                    self.placed.remove(&(word as u64 * 4));
                }
            }
        }
        Ok(())
    }

    fn upload(&mut self, slot: Slot, data: &[u8]) -> Result<(), ExecError> {
        self.write_slot(slot, data)
    }

    fn launch(&mut self, kernel: &Kernel) -> Result<(), ExecError> {
        match *kernel {
            Kernel::Relu { x, y, n } => self.with_io(y, n, &[(x, n)], |ins, dst| {
                for (d, &s) in dst.iter_mut().zip(ins[0]) {
                    *d = if s > 0.0 { s } else { 0.0 };
                }
            }),
            Kernel::Add { a, b, y, n } | Kernel::Mul { a, b, y, n } => {
                let add = matches!(kernel, Kernel::Add { .. });
                self.with_io(y, n, &[(a, n), (b, n)], |ins, dst| {
                    for ((d, &p), &q) in dst.iter_mut().zip(ins[0]).zip(ins[1]) {
                        *d = if add { p + q } else { p * q };
                    }
                })
            }
            Kernel::Matmul { a, b, y, m, k, n } => {
                let out = m
                    .checked_mul(n)
                    .ok_or_else(|| internal("matmul output size overflows"))?;
                let (kk, nn) = (len(k)?, len(n)?);
                self.with_io(y, out, &[(a, m * k), (b, k * n)], |ins, dst| {
                    let (ma, mb) = (ins[0], ins[1]);
                    dst.fill(0.0);
                    // i-p-j order: rows of b stream through the cache; each dst element sums
                    // its k products in increasing p, the same order on every run.
                    for (i, row) in dst.chunks_exact_mut(nn.max(1)).enumerate() {
                        for p in 0..kk {
                            let s = ma[i * kk + p];
                            let brow = &mb[p * nn..(p + 1) * nn];
                            for (d, &q) in row.iter_mut().zip(brow) {
                                *d += s * q;
                            }
                        }
                    }
                })
            }
            Kernel::Sum { x, y, rows, cols } => {
                let total = rows
                    .checked_mul(cols)
                    .ok_or_else(|| internal("sum input size overflows"))?;
                let c = len(cols)?;
                self.with_io(y, rows, &[(x, total)], |ins, dst| {
                    for (r, d) in dst.iter_mut().enumerate() {
                        let mut acc = 0.0f32;
                        for &v in &ins[0][r * c..(r + 1) * c] {
                            acc += v;
                        }
                        *d = acc;
                    }
                })
            }
            Kernel::Copy { x, y, bytes } => {
                let words = bytes.div_ceil(4);
                let n = len(bytes)?;
                self.with_io(y, words, &[(x, words)], |ins, dst| {
                    let src: &[u8] = bytemuck::cast_slice(ins[0]);
                    let out: &mut [u8] = bytemuck::cast_slice_mut(dst);
                    out[..n].copy_from_slice(&src[..n]);
                })
            }
            Kernel::Fill { ref outputs, word } => {
                let pattern = word.to_le_bytes();
                for &(s, bytes) in outputs {
                    let have = self.place_of(s)?.bytes();
                    let n = len(bytes.min(have))?;
                    self.with_io(s, (n as u64).div_ceil(4), &[], |_, dst| {
                        let out: &mut [u8] = bytemuck::cast_slice_mut(dst);
                        for (i, b) in out[..n].iter_mut().enumerate() {
                            *b = pattern[i % 4];
                        }
                    })?;
                }
                Ok(())
            }
        }
    }

    fn sync(&mut self) -> Result<(), ExecError> {
        Ok(())
    }

    fn peak(&mut self) -> Result<u64, ExecError> {
        Ok(self.high)
    }

    fn download(&mut self, slot: Slot, bytes: u64) -> Result<Vec<u8>, ExecError> {
        let place = match slot {
            Slot::Workspace => self.workspace.as_ref(),
            Slot::Storage(s) => self.storages.get(s as usize).and_then(|p| p.as_ref()),
        }
        .ok_or_else(|| internal(format!("{slot:?} read but not allocated")))?;
        self.slot_bytes(place)?
            .get(..len(bytes)?)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| internal(format!("{slot:?} is smaller than {bytes} bytes")))
    }

    fn free_all(&mut self) {
        self.storages.clear();
        self.workspace = None;
        self.arena = None;
        self.placed.clear();
        self.current = 0;
    }
}
