// What a Vite user writes: the package by its name, both wasm modules resolved by the bundler.
import init, { initOnnx, importOnnx, reorderOnnx, plan } from 'peakorder';

const out = document.getElementById('out');
try {
  await init();
  await initOnnx();
  const bytes = new Uint8Array(await (await fetch('/model.onnx')).arrayBuffer());
  const graph = importOnnx(bytes, { name: 'model.onnx' });
  const p = plan(graph, { budgetMs: 100 });
  const reordered = reorderOnnx(bytes, p);
  out.textContent = JSON.stringify({
    ops: graph.ops.length, tensors: graph.tensors.length, peak: p.peakBytes,
    order: p.order.length, sameLength: reordered.length === bytes.length,
  });
} catch (e) {
  out.textContent = JSON.stringify({ error: String(e && e.stack || e), code: e && e.code });
}
