//! The CPU backend: plain f32 kernels on host buffers, and an allocator that counts the exact
//! bytes of every tensor and workspace buffer the driver asks for, so its high-water mark is the
//! simulator's peak to the byte.
//!
//! Kernels are sequential loops in a fixed order (no threads, no FMA contraction), so a given
//! op computes the same bits whenever it runs.

use super::{Backend, ExecError, Kernel, Slot};

/// Host buffers keyed by slot, and the byte counter.
#[derive(Default)]
pub struct CpuBackend {
    /// Indexed by storage; f32 words (the last one partly used when bytes % 4 != 0).
    storages: Vec<Option<Buf>>,
    workspace: Option<Buf>,
    current: u64,
    high: u64,
}

struct Buf {
    words: Vec<f32>,
    bytes: u64,
}

impl Buf {
    fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.words)[..self.bytes as usize]
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        let n = self.bytes as usize;
        &mut bytemuck::cast_slice_mut(&mut self.words)[..n]
    }
}

fn internal(m: impl Into<String>) -> ExecError {
    ExecError::Internal(m.into())
}

fn len(n: u64) -> Result<usize, ExecError> {
    usize::try_from(n).map_err(|_| internal(format!("{n} elements do not fit in memory")))
}

impl CpuBackend {
    pub fn new() -> Self {
        CpuBackend::default()
    }

    fn slot_mut(&mut self, slot: Slot) -> &mut Option<Buf> {
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

    /// The first `n` f32s of storage `s`.
    fn input(&self, s: u32, n: u64) -> Result<&[f32], ExecError> {
        let buf = self
            .storages
            .get(s as usize)
            .and_then(|b| b.as_ref())
            .ok_or_else(|| internal(format!("storage #{s} is read but not allocated")))?;
        buf.words
            .get(..len(n)?)
            .ok_or_else(|| internal(format!("storage #{s} is smaller than {n} f32s")))
    }

    /// Takes storage `s` out of the table to write it while inputs are borrowed.
    fn take_output(&mut self, s: u32) -> Result<Buf, ExecError> {
        self.storages
            .get_mut(s as usize)
            .and_then(Option::take)
            .ok_or_else(|| internal(format!("storage #{s} is written but not allocated")))
    }

    fn put_back(&mut self, s: u32, buf: Buf) {
        self.storages[s as usize] = Some(buf);
    }

    /// Runs `f` over the first `n` f32s of output storage `y`.
    fn with_output(
        &mut self,
        y: u32,
        n: u64,
        f: impl FnOnce(&Self, &mut [f32]) -> Result<(), ExecError>,
    ) -> Result<(), ExecError> {
        let mut out = self.take_output(y)?;
        let result = match out.words.get_mut(..len(n)?) {
            Some(dst) => f(self, dst),
            None => Err(internal(format!("storage #{y} is smaller than {n} f32s"))),
        };
        self.put_back(y, out);
        result
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
        *entry = Some(Buf {
            words: vec![0.0; words],
            bytes,
        });
        self.current += bytes;
        self.high = self.high.max(self.current);
        Ok(())
    }

    fn free(&mut self, slot: Slot) -> Result<(), ExecError> {
        let buf = self
            .slot_mut(slot)
            .take()
            .ok_or_else(|| internal(format!("{slot:?} freed but not allocated")))?;
        self.current -= buf.bytes;
        Ok(())
    }

    fn upload(&mut self, slot: Slot, data: &[u8]) -> Result<(), ExecError> {
        let buf = self
            .slot_mut(slot)
            .as_mut()
            .ok_or_else(|| internal(format!("{slot:?} written but not allocated")))?;
        buf.bytes_mut()
            .get_mut(..data.len())
            .ok_or_else(|| internal(format!("{slot:?} is smaller than its data")))?
            .copy_from_slice(data);
        Ok(())
    }

    fn launch(&mut self, kernel: &Kernel) -> Result<(), ExecError> {
        match *kernel {
            Kernel::Relu { x, y, n } => self.with_output(y, n, |me, dst| {
                let src = me.input(x, n)?;
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = if s > 0.0 { s } else { 0.0 };
                }
                Ok(())
            }),
            Kernel::Add { a, b, y, n } | Kernel::Mul { a, b, y, n } => {
                let add = matches!(kernel, Kernel::Add { .. });
                self.with_output(y, n, |me, dst| {
                    let (a, b) = (me.input(a, n)?, me.input(b, n)?);
                    for ((d, &p), &q) in dst.iter_mut().zip(a).zip(b) {
                        *d = if add { p + q } else { p * q };
                    }
                    Ok(())
                })
            }
            Kernel::Matmul { a, b, y, m, k, n } => {
                let out = m
                    .checked_mul(n)
                    .ok_or_else(|| internal("matmul output size overflows"))?;
                self.with_output(y, out, |me, dst| {
                    let (ma, mb) = (me.input(a, m * k)?, me.input(b, k * n)?);
                    let (k, n) = (len(k)?, len(n)?);
                    dst.fill(0.0);
                    // i-p-j order: rows of b stream through the cache; each dst element sums
                    // its k products in increasing p, the same order on every run.
                    for (i, row) in dst.chunks_exact_mut(n.max(1)).enumerate() {
                        for p in 0..k {
                            let s = ma[i * k + p];
                            let brow = &mb[p * n..(p + 1) * n];
                            for (d, &q) in row.iter_mut().zip(brow) {
                                *d += s * q;
                            }
                        }
                    }
                    Ok(())
                })
            }
            Kernel::Sum { x, y, rows, cols } => {
                let total = rows
                    .checked_mul(cols)
                    .ok_or_else(|| internal("sum input size overflows"))?;
                self.with_output(y, rows, |me, dst| {
                    let src = me.input(x, total)?;
                    let cols = len(cols)?;
                    for (r, d) in dst.iter_mut().enumerate() {
                        let mut acc = 0.0f32;
                        for &v in &src[r * cols..(r + 1) * cols] {
                            acc += v;
                        }
                        *d = acc;
                    }
                    Ok(())
                })
            }
            Kernel::Copy { x, y, bytes } => {
                let n = len(bytes)?;
                let mut out = self.take_output(y)?;
                let result = {
                    let src = self
                        .storages
                        .get(x as usize)
                        .and_then(|b| b.as_ref())
                        .ok_or_else(|| internal(format!("storage #{x} read but not allocated")));
                    match (src, out.bytes_mut().get_mut(..n)) {
                        (Ok(src), Some(dst)) => match src.bytes().get(..n) {
                            Some(s) => {
                                dst.copy_from_slice(s);
                                Ok(())
                            }
                            None => Err(internal(format!("storage #{x} is smaller than {n}"))),
                        },
                        (Err(e), _) => Err(e),
                        (_, None) => Err(internal(format!("storage #{y} is smaller than {n}"))),
                    }
                };
                self.put_back(y, out);
                result
            }
            Kernel::Fill { ref outputs, word } => {
                let pattern = word.to_le_bytes();
                for &(s, bytes) in outputs {
                    let mut out = self.take_output(s)?;
                    let n = len(bytes)?.min(out.bytes as usize);
                    for (i, b) in out.bytes_mut()[..n].iter_mut().enumerate() {
                        *b = pattern[i % 4];
                    }
                    self.put_back(s, out);
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
        let buf = self
            .slot_mut(slot)
            .as_ref()
            .ok_or_else(|| internal(format!("{slot:?} read but not allocated")))?;
        buf.bytes()
            .get(..len(bytes)?)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| internal(format!("{slot:?} is smaller than {bytes} bytes")))
    }

    fn free_all(&mut self) {
        self.storages.clear();
        self.workspace = None;
        self.current = 0;
    }
}
