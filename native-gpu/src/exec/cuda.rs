//! The CUDA backend (cudarc, with the CUDA libraries loaded at run time).
//!
//! Every tensor and workspace buffer comes from a dedicated stream-ordered memory pool
//! (`cuMemPoolCreate`, `cuMemAllocFromPoolAsync`, `cuMemFreeAsync`), so the pool's
//! `USED_MEM_HIGH` attribute, reset before the run, is exactly the run's peak as the device saw
//! it. Nothing else allocates from this pool: cuBLAS's and NVRTC's own memory lives elsewhere.
//! Before measuring, the backend probes how many bytes the pool takes for every size the run
//! will allocate (its rounding), so the report can say how far the device may differ from the
//! plan. The stream is synchronised after every launch and every free, so the pool's counters
//! move exactly when the driver loop says; elapsed times include those waits.
//!
//! Kernels: cuBLAS `sgemm` for matmul; NVRTC-compiled grid-stride loops for relu, add, mul, sum
//! and fill (sum adds each row in order in one thread, so it is deterministic); `cuMemcpyDtoD`
//! for copy.
//!
//! cudarc's loader panics when a library or symbol is missing, so presence is checked first and
//! every call into CUDA also runs under `catch_unwind` (with the panic message silenced) as a last
//! line of defence: a missing library is an error, never a crash.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cudarc::cublas::{self, CudaBlas};
use cudarc::driver::{
    result::{self, DriverError},
    sys, CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc;

use super::{Backend, ExecError, Kernel, Slot};

/// The message for a machine without CUDA.
pub const NO_DRIVER: &str = "no CUDA driver was found (the libcuda shared library could not be \
                             loaded); install the NVIDIA driver, or run with --device cpu";

const KERNELS: &str = r#"
typedef unsigned long long u64;
#define GRID_STRIDE(i, n) for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < (n); \
                               i += (u64)blockDim.x * gridDim.x)
extern "C" __global__ void po_relu(const float* x, float* y, u64 n) {
    GRID_STRIDE(i, n) { float v = x[i]; y[i] = v > 0.0f ? v : 0.0f; }
}
extern "C" __global__ void po_add(const float* a, const float* b, float* y, u64 n) {
    GRID_STRIDE(i, n) { y[i] = a[i] + b[i]; }
}
extern "C" __global__ void po_mul(const float* a, const float* b, float* y, u64 n) {
    GRID_STRIDE(i, n) { y[i] = a[i] * b[i]; }
}
extern "C" __global__ void po_sum_rows(const float* x, float* y, u64 rows, u64 cols) {
    GRID_STRIDE(r, rows) {
        float acc = 0.0f;
        for (u64 c = 0; c < cols; ++c) acc += x[r * cols + c];
        y[r] = acc;
    }
}
extern "C" __global__ void po_fill(unsigned char* y, u64 n, unsigned int word) {
    GRID_STRIDE(i, n) { y[i] = (unsigned char)(word >> (8 * (unsigned)(i & 3))); }
}
"#;

/// Runs `f`, turning a panic inside the CUDA libraries into an error without printing it.
fn guarded<T>(f: impl FnOnce() -> Result<T, ExecError>) -> Result<T, ExecError> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    match result {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown failure".into());
            Err(ExecError::Cuda(format!(
                "a CUDA library failed to load: {msg}"
            )))
        }
    }
}

fn drv(context: &'static str) -> impl Fn(DriverError) -> ExecError {
    move |e| ExecError::Cuda(format!("{context}: {e}"))
}

/// Checks for a CUDA driver and at least one device; returns the device count.
pub fn probe() -> Result<i32, ExecError> {
    guarded(probe_unguarded)
}

fn probe_unguarded() -> Result<i32, ExecError> {
    // SAFETY: only tries to open the driver library by name.
    if !unsafe { sys::is_culib_present() } {
        return Err(ExecError::NoCuda(NO_DRIVER.into()));
    }
    match CudaContext::device_count() {
        Ok(n) if n > 0 => Ok(n),
        Ok(_) => Err(ExecError::NoCuda(
            "a CUDA driver was found, but it reports no CUDA device".into(),
        )),
        Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE => Err(ExecError::NoCuda(
            "a CUDA driver was found, but it reports no CUDA device".into(),
        )),
        Err(e) => Err(ExecError::NoCuda(format!(
            "a CUDA driver was found, but it failed to initialise: {e}"
        ))),
    }
}

struct DevBuf {
    ptr: sys::CUdeviceptr,
    bytes: u64,
    /// False for a place in the arena: freeing it only unbinds it.
    owned: bool,
}

/// Offsets in the arena are multiples of this: cudaMalloc's own alignment, enough for every
/// kernel here (f32 loads, cuBLAS).
const ARENA_ALIGN: u64 = 256;

struct Funcs {
    relu: CudaFunction,
    add: CudaFunction,
    mul: CudaFunction,
    sum_rows: CudaFunction,
    fill: CudaFunction,
}

/// Device 0, a stream, a dedicated memory pool, the compiled kernels and a cuBLAS handle.
pub struct CudaBackend {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    blas: CudaBlas,
    funcs: Funcs,
    pool: sys::CUmemoryPool,
    storages: Vec<Option<DevBuf>>,
    workspace: Option<DevBuf>,
    /// Arena mode: the one buffer every storage and workspace is placed in.
    arena: Option<DevBuf>,
    /// Bytes the pool takes for each requested size, probed in `prepare`.
    charges: HashMap<u64, u64>,
    name: String,
}

impl CudaBackend {
    /// Opens device 0. Fails cleanly (no panic) without a driver, a device, NVRTC or cuBLAS.
    pub fn open() -> Result<CudaBackend, ExecError> {
        guarded(Self::open_unguarded)
    }

    fn open_unguarded() -> Result<CudaBackend, ExecError> {
        probe_unguarded()?;
        // SAFETY: only try to open the libraries by name.
        if !unsafe { nvrtc::sys::is_culib_present() } {
            return Err(ExecError::Cuda(
                "a CUDA driver was found, but not the NVRTC library (libnvrtc, from the CUDA \
                 toolkit), which compiles the elementwise kernels"
                    .into(),
            ));
        }
        if !unsafe { cublas::sys::is_culib_present() } {
            return Err(ExecError::Cuda(
                "a CUDA driver was found, but not the cuBLAS library (libcublas, from the CUDA \
                 toolkit), which runs matmul"
                    .into(),
            ));
        }
        let ctx = CudaContext::new(0).map_err(drv("opening device 0"))?;
        let name = ctx.name().unwrap_or_else(|_| "device 0".into());
        let stream = ctx.new_stream().map_err(drv("creating a stream"))?;
        let ptx = nvrtc::compile_ptx(KERNELS)
            .map_err(|e| ExecError::Cuda(format!("NVRTC could not compile the kernels: {e}")))?;
        let module = ctx.load_module(ptx).map_err(drv(
            "loading the compiled kernels (an NVRTC newer than the driver gives \
             CUDA_ERROR_UNSUPPORTED_PTX_VERSION)",
        ))?;
        let f = |name: &str| {
            module
                .load_function(name)
                .map_err(|e| ExecError::Cuda(format!("kernel {name}: {e}")))
        };
        let funcs = Funcs {
            relu: f("po_relu")?,
            add: f("po_add")?,
            mul: f("po_mul")?,
            sum_rows: f("po_sum_rows")?,
            fill: f("po_fill")?,
        };
        let blas = CudaBlas::new(stream.clone())
            .map_err(|e| ExecError::Cuda(format!("creating a cuBLAS handle: {e:?}")))?;

        // SAFETY: a zeroed CUmemPoolProps is the documented "all defaults" value (every enum
        // field has a 0 variant); the fields that matter are set below.
        let mut props: sys::CUmemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        props.handleTypes = sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE;
        props.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        props.location.id = ctx.ordinal() as i32;
        // SAFETY: props is a valid, fully initialised struct.
        let pool =
            unsafe { result::mem_pool::create(&props) }.map_err(drv("creating a memory pool"))?;
        let backend = CudaBackend {
            ctx,
            stream,
            blas,
            funcs,
            pool,
            storages: Vec::new(),
            workspace: None,
            arena: None,
            charges: HashMap::new(),
            name,
        };
        // Keep freed memory reserved in the pool: it makes reuse cheap and does not change the
        // used-memory counters that are measured.
        let mut threshold: u64 = u64::MAX;
        backend.set_attr(
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            &mut threshold,
        )?;
        Ok(backend)
    }

    fn get_attr(&self, attr: sys::CUmemPool_attribute) -> Result<u64, ExecError> {
        let mut value: u64 = 0;
        // SAFETY: the pool is valid; the used/reserved/threshold attributes are cuuint64_t.
        unsafe {
            result::mem_pool::get_attribute(self.pool, attr, &mut value as *mut u64 as *mut _)
        }
        .map_err(drv("reading a memory pool attribute"))?;
        Ok(value)
    }

    fn set_attr(&self, attr: sys::CUmemPool_attribute, value: &mut u64) -> Result<(), ExecError> {
        // SAFETY: as in get_attr.
        unsafe { result::mem_pool::set_attribute(self.pool, attr, value as *mut u64 as *mut _) }
            .map_err(drv("setting a memory pool attribute"))
    }

    fn used_now(&self) -> Result<u64, ExecError> {
        self.get_attr(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)
    }

    /// Makes the device's context current on this thread (result-level calls rely on it).
    fn bind(&self) -> Result<(), ExecError> {
        self.ctx
            .bind_to_thread()
            .map_err(drv("binding the context"))
    }

    fn sync_stream(&self) -> Result<(), ExecError> {
        self.stream.synchronize().map_err(drv("synchronising"))
    }

    fn raw_alloc(&self, bytes: u64) -> Result<sys::CUdeviceptr, DriverError> {
        // SAFETY: the pool and stream are valid; the memory is written before it is read.
        unsafe { result::mem_pool::alloc_async(self.pool, bytes as usize, self.stream.cu_stream()) }
    }

    fn raw_free(&self, ptr: sys::CUdeviceptr) -> Result<(), ExecError> {
        // SAFETY: ptr came from raw_alloc and is freed once; the stream orders it after its uses.
        unsafe { result::free_async(ptr, self.stream.cu_stream()) }.map_err(drv("freeing"))?;
        self.sync_stream()
    }

    /// Allocates `bytes` from the pool (0 for none), naming `what` when the device is full.
    fn alloc_bytes(
        &self,
        bytes: u64,
        what: &dyn Fn() -> String,
    ) -> Result<sys::CUdeviceptr, ExecError> {
        if bytes == 0 {
            return Ok(0);
        }
        match self.raw_alloc(bytes) {
            Ok(p) => Ok(p),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                let free = self
                    .ctx
                    .mem_get_info()
                    .map(|(free, total)| format!("{free} of {total} bytes free"))
                    .unwrap_or_default();
                Err(ExecError::OutOfMemory {
                    what: what(),
                    bytes,
                    detail: format!("{}; {free}", self.name),
                })
            }
            Err(e) => Err(drv("allocating from the pool")(e)),
        }
    }

    fn slot_mut(&mut self, slot: Slot) -> &mut Option<DevBuf> {
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

    fn ptr(&self, s: u32) -> Result<sys::CUdeviceptr, ExecError> {
        self.storages
            .get(s as usize)
            .and_then(|b| b.as_ref())
            .map(|b| b.ptr)
            .ok_or_else(|| ExecError::Internal(format!("storage #{s} used but not allocated")))
    }

    fn launch_cfg(n: u64) -> LaunchConfig {
        const THREADS: u64 = 256;
        LaunchConfig {
            grid_dim: (n.div_ceil(THREADS).clamp(1, 65_535) as u32, 1, 1),
            block_dim: (THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    fn launch_unguarded(&mut self, kernel: &Kernel) -> Result<(), ExecError> {
        let launch_err = drv("launching a kernel");
        match *kernel {
            Kernel::Relu { x, y, n } => {
                if n > 0 {
                    let (xp, yp) = (self.ptr(x)?, self.ptr(y)?);
                    let mut b = self.stream.launch_builder(&self.funcs.relu);
                    b.arg(&xp).arg(&yp).arg(&n);
                    // SAFETY: both buffers hold at least n f32s (checked by `prepare`).
                    unsafe { b.launch(Self::launch_cfg(n)) }.map_err(launch_err)?;
                }
            }
            Kernel::Add { a, b, y, n } | Kernel::Mul { a, b, y, n } => {
                if n > 0 {
                    let f = if matches!(kernel, Kernel::Add { .. }) {
                        &self.funcs.add
                    } else {
                        &self.funcs.mul
                    };
                    let (ap, bp, yp) = (self.ptr(a)?, self.ptr(b)?, self.ptr(y)?);
                    let mut l = self.stream.launch_builder(f);
                    l.arg(&ap).arg(&bp).arg(&yp).arg(&n);
                    // SAFETY: all three buffers hold at least n f32s.
                    unsafe { l.launch(Self::launch_cfg(n)) }.map_err(launch_err)?;
                }
            }
            Kernel::Sum { x, y, rows, cols } => {
                if rows > 0 {
                    let (xp, yp) = (self.ptr(x)?, self.ptr(y)?);
                    let mut l = self.stream.launch_builder(&self.funcs.sum_rows);
                    l.arg(&xp).arg(&yp).arg(&rows).arg(&cols);
                    // SAFETY: x holds rows*cols f32s, y holds rows.
                    unsafe { l.launch(Self::launch_cfg(rows)) }.map_err(launch_err)?;
                }
            }
            Kernel::Copy { x, y, bytes } => {
                if bytes > 0 {
                    let (xp, yp) = (self.ptr(x)?, self.ptr(y)?);
                    // SAFETY: both buffers hold at least `bytes` bytes.
                    unsafe {
                        result::memcpy_dtod_async(yp, xp, bytes as usize, self.stream.cu_stream())
                    }
                    .map_err(drv("copying"))?;
                }
            }
            Kernel::Fill { ref outputs, word } => {
                for &(s, bytes) in outputs {
                    if bytes > 0 {
                        let yp = self.ptr(s)?;
                        let mut l = self.stream.launch_builder(&self.funcs.fill);
                        l.arg(&yp).arg(&bytes).arg(&word);
                        // SAFETY: the buffer holds `bytes` bytes.
                        unsafe { l.launch(Self::launch_cfg(bytes)) }.map_err(drv("filling"))?;
                    }
                }
            }
            Kernel::Matmul { a, b, y, m, k, n } => {
                let yp = self.ptr(y)?;
                if m > 0 && n > 0 && k == 0 {
                    // An empty sum: zeros (cuBLAS needs k >= 1).
                    // SAFETY: y holds m*n f32s.
                    unsafe {
                        result::memset_d8_async(
                            yp,
                            0,
                            (m * n * 4) as usize,
                            self.stream.cu_stream(),
                        )
                    }
                    .map_err(drv("clearing"))?;
                } else if m > 0 && n > 0 {
                    let (ap, bp) = (self.ptr(a)?, self.ptr(b)?);
                    let (alpha, beta) = (1.0f32, 0.0f32);
                    let op = cublas::sys::cublasOperation_t::CUBLAS_OP_N;
                    // Row-major y = a @ b is column-major y^T = b^T @ a^T: pass b first.
                    // SAFETY: the buffers hold m*k, k*n and m*n f32s; dims fit i32 (checked
                    // by `prepare`); alpha and beta are host scalars (the default pointer mode).
                    unsafe {
                        cublas::result::sgemm(
                            *self.blas.handle(),
                            op,
                            op,
                            n as i32,
                            m as i32,
                            k as i32,
                            &alpha,
                            bp as *const f32,
                            n as i32,
                            ap as *const f32,
                            k as i32,
                            &beta,
                            yp as *mut f32,
                            n as i32,
                        )
                    }
                    .map_err(|e| ExecError::Cuda(format!("cuBLAS sgemm: {e:?}")))?;
                }
            }
        }
        self.sync_stream()
    }

    fn free_all_unguarded(&mut self) {
        let bufs: Vec<DevBuf> = self
            .storages
            .iter_mut()
            .filter_map(Option::take)
            .chain(self.workspace.take())
            .chain(self.arena.take())
            .collect();
        for b in bufs {
            if b.bytes > 0 && b.owned {
                let _ = self.raw_free(b.ptr);
            }
        }
        let _ = self.sync_stream();
    }
}

impl Backend for CudaBackend {
    fn describe(&self) -> String {
        let one = self.charges.get(&1).copied();
        match one {
            Some(g) => format!(
                "cuda: {} (device 0), dedicated stream-ordered memory pool (a 1-byte allocation \
                 takes {g} bytes)",
                self.name
            ),
            None => format!(
                "cuda: {} (device 0), dedicated stream-ordered memory pool",
                self.name
            ),
        }
    }

    fn prepare(&mut self, sizes: &[u64]) -> Result<(), ExecError> {
        guarded(|| {
            self.bind()?;
            let mut todo: Vec<u64> = sizes
                .iter()
                .copied()
                .filter(|b| !self.charges.contains_key(b))
                .collect();
            if !self.charges.contains_key(&1) {
                todo.push(1);
            }
            for bytes in todo {
                self.sync_stream()?;
                let before = self.used_now()?;
                let ptr = match self.raw_alloc(bytes) {
                    Ok(p) => p,
                    Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                        return Err(ExecError::OutOfMemory {
                            what: "probing the pool's rounding".into(),
                            bytes,
                            detail: format!("{e}"),
                        })
                    }
                    Err(e) => return Err(drv("probing the pool")(e)),
                };
                self.sync_stream()?;
                let after = self.used_now()?;
                self.raw_free(ptr)?;
                self.charges
                    .insert(bytes, after.saturating_sub(before).max(bytes));
            }
            Ok(())
        })
    }

    fn charge(&self, bytes: u64) -> u64 {
        if bytes == 0 {
            return 0;
        }
        self.charges.get(&bytes).copied().unwrap_or(bytes)
    }

    fn reset_peak(&mut self) -> Result<(), ExecError> {
        guarded(|| {
            self.bind()?;
            self.sync_stream()?;
            let used = self.used_now()?;
            if used != 0 {
                return Err(ExecError::Internal(format!(
                    "the memory pool still has {used} bytes in use before the run"
                )));
            }
            let mut zero = 0u64;
            self.set_attr(
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH,
                &mut zero,
            )
        })
    }

    fn alloc(
        &mut self,
        slot: Slot,
        bytes: u64,
        what: &dyn Fn() -> String,
    ) -> Result<(), ExecError> {
        guarded(|| {
            self.bind()?;
            if self.slot_mut(slot).is_some() {
                return Err(ExecError::Internal(format!("{slot:?} allocated twice")));
            }
            let ptr = self.alloc_bytes(bytes, what)?;
            *self.slot_mut(slot) = Some(DevBuf {
                ptr,
                bytes,
                owned: true,
            });
            Ok(())
        })
    }

    fn arena_align(&self) -> Option<u64> {
        Some(ARENA_ALIGN)
    }

    fn open_arena(&mut self, bytes: u64, what: &dyn Fn() -> String) -> Result<(), ExecError> {
        guarded(|| {
            self.bind()?;
            if self.arena.is_some() {
                return Err(ExecError::Internal("the arena is opened twice".into()));
            }
            let ptr = self.alloc_bytes(bytes, what)?;
            self.arena = Some(DevBuf {
                ptr,
                bytes,
                owned: true,
            });
            Ok(())
        })
    }

    fn place(&mut self, slot: Slot, offset: u64, bytes: u64) -> Result<(), ExecError> {
        let (base, size) = match &self.arena {
            Some(a) => (a.ptr, a.bytes),
            None => {
                return Err(ExecError::Internal(format!(
                    "{slot:?} placed with no arena"
                )))
            }
        };
        if offset % ARENA_ALIGN != 0 || offset.checked_add(bytes).map_or(true, |e| e > size) {
            return Err(ExecError::Internal(format!(
                "{slot:?} at offset {offset} ({bytes} bytes) does not fit the {size}-byte arena"
            )));
        }
        if self.slot_mut(slot).is_some() {
            return Err(ExecError::Internal(format!("{slot:?} placed twice")));
        }
        *self.slot_mut(slot) = Some(DevBuf {
            ptr: base + offset,
            bytes,
            owned: false,
        });
        Ok(())
    }

    fn free(&mut self, slot: Slot) -> Result<(), ExecError> {
        guarded(|| {
            self.bind()?;
            let buf = self
                .slot_mut(slot)
                .take()
                .ok_or_else(|| ExecError::Internal(format!("{slot:?} freed but not allocated")))?;
            if buf.bytes > 0 && buf.owned {
                self.raw_free(buf.ptr)?;
            }
            Ok(())
        })
    }

    fn upload(&mut self, slot: Slot, data: &[u8]) -> Result<(), ExecError> {
        guarded(|| {
            self.bind()?;
            let buf = self.slot_mut(slot).as_ref().ok_or_else(|| {
                ExecError::Internal(format!("{slot:?} written but not allocated"))
            })?;
            if data.is_empty() {
                return Ok(());
            }
            if (data.len() as u64) > buf.bytes {
                return Err(ExecError::Internal(format!(
                    "{slot:?} is smaller than its data"
                )));
            }
            let ptr = buf.ptr;
            // SAFETY: the buffer holds data.len() bytes; we wait for the copy before returning,
            // so `data` outlives it.
            unsafe { result::memcpy_htod_async(ptr, data, self.stream.cu_stream()) }
                .map_err(drv("copying to the device"))?;
            self.sync_stream()
        })
    }

    fn launch(&mut self, kernel: &Kernel) -> Result<(), ExecError> {
        guarded(|| {
            self.bind()?;
            self.launch_unguarded(kernel)
        })
    }

    fn sync(&mut self) -> Result<(), ExecError> {
        guarded(|| {
            self.bind()?;
            self.sync_stream()
        })
    }

    fn peak(&mut self) -> Result<u64, ExecError> {
        guarded(|| {
            self.bind()?;
            self.sync_stream()?;
            self.get_attr(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH)
        })
    }

    fn download(&mut self, slot: Slot, bytes: u64) -> Result<Vec<u8>, ExecError> {
        guarded(|| {
            self.bind()?;
            let buf = self
                .slot_mut(slot)
                .as_ref()
                .ok_or_else(|| ExecError::Internal(format!("{slot:?} read but not allocated")))?;
            if bytes > buf.bytes {
                return Err(ExecError::Internal(format!(
                    "{slot:?} is smaller than {bytes} bytes"
                )));
            }
            let mut out = vec![0u8; bytes as usize];
            if bytes > 0 {
                let ptr = buf.ptr;
                self.sync_stream()?;
                // SAFETY: the buffer holds `bytes` bytes; we wait before `out` is used.
                unsafe { result::memcpy_dtoh_async(&mut out[..], ptr, self.stream.cu_stream()) }
                    .map_err(drv("copying to the host"))?;
                self.sync_stream()?;
            }
            Ok(out)
        })
    }

    fn free_all(&mut self) {
        let _ = guarded(|| {
            let _ = self.bind();
            self.free_all_unguarded();
            Ok(())
        });
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        let _ = guarded(|| {
            let _ = self.ctx.bind_to_thread();
            self.free_all_unguarded();
            // SAFETY: every allocation from the pool was freed and the stream is idle.
            let _ = unsafe { result::mem_pool::destroy(self.pool) };
            Ok(())
        });
    }
}
