// The peakorder view: summary, memory-over-time chart, the per-tensor memory timeline, the DAG
// (grouped by scope when big), planned order, live-at-peak tensors, hover details, selection
// shared by every panel, and a plan download. `mount` puts it in any element (the static page,
// notebooks, the self-contained report); `render` is the anywidget entry.

import css from './style.css';
import { planner } from './planner.js';
import { drawChart } from './chart.js';
import { drawDag } from './dag.js';
import { buildBands, drawTimeline } from './timeline.js';
import { drawArena } from './arena.js';
import { fromCli, toCli, result as withOldNames } from '../../js/names.mjs';
import { buildGroups, defaultExpanded } from './groups.js';
import { EXAMPLES } from './examples.js';
import { Rows } from './rows.js';
import { formatBytes, formatDelta, formatMs, formatCost, plural, count, viridis, escapeHtml } from './format.js';

const STYLE_ID = 'peakorder-view-style';

function injectStyle(element) {
  const root = element.getRootNode();
  const target = root instanceof ShadowRoot ? root : document.head;
  if (target.querySelector && target.querySelector(`#${STYLE_ID}`)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent = css;
  target.appendChild(style);
}

function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function graphText(graph) {
  if (graph === null || graph === undefined) return null;
  return typeof graph === 'string' ? graph : JSON.stringify(graph);
}

/** The npm API's objects of a result (plan, simulations, arena, fusion: camelCase, docs/wasm.md
 * "Names") with their deprecated snake_case names again, as `result()` returns them: the worker's
 * messages carry only the camelCase fields. In place; returns `r`. */
function oldNames(r) {
  for (const k of ['plan', 'program', 'planned', 'arena', 'fusion']) if (r[k]) r[k] = withOldNames(r[k]);
  return r;
}

const DEFAULTS = {
  method: null, budget_ms: 1000, controls: false, chartHeight: 280, fuse: false,
  memory_limit_bytes: null, recompute_method: null, plan: null,
};
// The largest ONNX file the page imports: the model's bytes, their copy in wasm memory, the graph
// JSON and the plan all live in one wasm32 heap (4 GiB at most).
const MAX_ONNX_BYTES = 1024 * 1024 * 1024;
// Nodes the grouped DAG shows at first (the groups around the peak open, the rest closed).
const GROUP_BUDGET = 60;

/**
 * Mounts the view in `element` and plans `graph` (a peakorder/1 object or JSON text; may be null
 * when `options.controls` lets the user load one). Options: `method` (default: the core's
 * default), `budget_ms`, `max_states`, `controls` (file picker, drag and drop, paste, examples,
 * method and budget pickers), `example` (key of a built-in example to start with),
 * `chartHeight`, `fuse` (true: also run memory-aware fusion, outline its regions in the DAG and
 * show kernels before/after and the fused peak next to the Thunder-style baseline's; the
 * controls' "Fuse" toggle sets it), `regions` (fusion regions to outline instead: arrays of op
 * ids), `memory_limit_bytes` (a number or text such as "64MiB": plan the schedule within it that
 * recomputes least, docs/design.md §3; the controls' "memory limit" box sets it) with
 * `recompute_method`, and `plan` (a plan object, e.g. `peakorder plan --json`'s, or an order or
 * schedule of op ids, to show instead of planning).
 * Returns {ready, update(graph, options), fuse(on), destroy(), result()}; `ready` resolves after the first
 * plan is drawn (or rejects with the planner's error, which is also shown in the view).
 */
export function mount(element, graph, options = {}) {
  injectStyle(element);
  const opts = { ...DEFAULTS, ...options };
  const view = new View(element, opts);
  let text = graphText(graph);
  let label = opts.exampleLabel || 'graph';
  const example = text === null && opts.example ? EXAMPLES.find((e) => e.key === opts.example) : null;
  if (example) {
    text = graphText(example.graph());
    label = example.label;
    if (view.exampleSel) view.exampleSel.value = example.key;
  }
  const ready = text === null ? view.idle() : view.load(text, label);
  return {
    ready,
    update: (g, o = {}) => {
      Object.assign(view.opts, o);
      view.syncControls();
      return view.load(graphText(g) ?? view.text, 'graph');
    },
    fuse: (on) => view.setFuse(on),
    result: () => view.last,
    timeline: (key = 'planned') => view.timelines[key] || null,
    arena: () => view.arena,
    dag: () => view.dag,
    select: (kind, id) => view.selectById(kind, id),
    destroy: () => view.destroy(),
  };
}

/**
 * anywidget entry: the model's traits are `graph` (JSON text or object), and optionally `method`,
 * `budget_ms`, `controls`, `fuse`. Re-plans when they change; returns the clean-up function.
 */
export function render({ model, el }) {
  const options = () => ({
    method: model.get('method') || null,
    budget_ms: model.get('budget_ms') || DEFAULTS.budget_ms,
    controls: !!model.get('controls'),
    fuse: !!model.get('fuse'),
    memory_limit_bytes: model.get('memory_limit_bytes') ?? null,
  });
  const traits = ['graph', 'method', 'budget_ms', 'fuse', 'memory_limit_bytes'];
  const handle = mount(el, model.get('graph') || null, options());
  const onChange = () => handle.update(model.get('graph') || null, options()).catch(() => {});
  for (const k of traits) model.on(`change:${k}`, onChange);
  handle.ready.catch(() => {});
  return () => {
    for (const k of traits) model.off(`change:${k}`, onChange);
    handle.destroy();
  };
}

class View {
  constructor(element, opts) {
    this.opts = opts;
    this.text = null;
    this.last = null;
    this.seq = 0;
    this.methods = null;
    this.root = h('div', { class: 'po-root', 'data-state': 'idle' });
    this.tooltip = h('div', { class: 'po-tooltip', role: 'tooltip', hidden: true });
    this.status = h('div', { class: 'po-status', 'aria-live': 'polite' });
    this.summary = h('section', { class: 'po-summary', 'data-testid': 'summary' });
    this.chartHost = h('div', { class: 'po-chart', 'data-testid': 'chart' });
    this.dagHost = h('div', { class: 'po-dag', 'data-testid': 'dag' });
    this.dagNote = h('p', { class: 'po-note' });
    this.timelines = {};
    this.timelineMode = 'both';
    this.timelineHost = h('div', { class: 'po-timelines', 'data-testid': 'timeline' });
    this.timelineNote = h('p', { class: 'po-note' });
    this.timelineToggle = h('div', { class: 'po-seg', role: 'group', 'aria-label': 'Orders shown' },
      ...[['both', 'both orders'], ['planned', 'planned'], ['program', 'program']].map(([k, label]) => h('button', {
        class: 'po-btn po-seg-btn', type: 'button', 'data-mode': k, 'aria-pressed': String(k === 'both'),
        onclick: () => this.setTimelineMode(k),
      }, label)));
    this.arenaHost = h('div', { class: 'po-timelines', 'data-testid': 'arena' });
    this.arenaNote = h('p', { class: 'po-note' });
    this.arenaPanel = h('section', { class: 'po-panel', hidden: true },
      h('div', { class: 'po-panel-head' }, h('h3', {}, 'Arena (static memory layout)')),
      h('div', { class: 'po-legend' },
        h('span', {}, 'one rectangle per buffer: its byte offset in the one arena (y) while it is live (x, the steps of the order it was laid out for) ·'),
        h('span', { class: 'po-nowrap' }, 'colours as in the timeline ·'),
        h('span', { class: 'po-nowrap' }, 'hover for details, click to select')),
      this.arenaNote, this.arenaHost);
    this.searchBox = h('input', {
      class: 'po-input po-search', type: 'search', placeholder: 'Find an op or tensor id…', 'aria-label': 'Find an op or tensor', 'data-testid': 'search',
    });
    this.searchResults = h('ul', { class: 'po-search-results', hidden: true, 'data-testid': 'search-results' });
    this.searchBox.addEventListener('input', () => this.search(this.searchBox.value));
    this.searchBox.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') {
        const first = this.searchResults.querySelector('li');
        if (first) first.click();
      } else if (ev.key === 'Escape') this.closeSearch();
    });
    this.collapseBtn = h('button', { class: 'po-btn', type: 'button', hidden: true, onclick: () => this.resetGroups() }, 'Collapse all');
    this.orderList = h('ol', { class: 'po-order', 'data-testid': 'order' });
    this.liveList = h('ul', { class: 'po-live', 'data-testid': 'live' });
    this.orderRows = new Rows(this.orderList);
    this.liveRows = new Rows(this.liveList);
    this.liveTitle = h('h3', {}, 'Live at the planned peak');
    this.downloadBtn = h('button', { class: 'po-btn', type: 'button', disabled: true, onclick: () => this.download() }, 'Download plan (JSON)');
    this.legend = h('div', { class: 'po-legend', 'data-testid': 'chart-legend' });
    this.timelineRecomputeKey = h('span', { class: 'po-nowrap po-recompute-key', hidden: true, 'data-testid': 'timeline-recompute-key' },
      h('span', { class: 'po-key po-key-recompute' }), 'made again by a recomputation (an op\'s 2nd+ run; marked under the step axis) ·');
    this.regionKey = h('span', { class: 'po-region-key', hidden: true },
      ' · ', h('span', { class: 'po-key po-key-region' }), 'fusion region (memory-aware)');
    this.dagLegend = h('div', { class: 'po-legend' },
      'op colour = position in the planned order: first ',
      h('span', { class: 'po-gradient' }), ' last · ',
      h('span', { class: 'po-key po-key-live' }), 'tensor live at the peak (its edge, producer outline, or a stub for a graph input) · ',
      h('span', { class: 'po-key po-key-peak' }), 'the op (or group) running at the planned peak',
      this.regionKey);
    this.controls = opts.controls ? this.buildControls() : null;
    this.root.append(
      ...(this.controls ? [this.controls] : []),
      this.status,
      this.summary,
      h('section', { class: 'po-panel' }, h('h3', {}, 'Memory over time'), this.legend, this.chartHost),
      h('section', { class: 'po-panel' },
        h('div', { class: 'po-panel-head' }, h('h3', {}, 'Memory by tensor'), this.timelineToggle),
        h('div', { class: 'po-legend' },
          h('span', {}, 'one band per storage, from the op that makes it to the last op that needs it, stacked in allocation order ·'),
          h('span', { class: 'po-nowrap' }, 'full colour: live at the peak (dashed line) ·'),
          h('span', { class: 'po-nowrap' }, h('span', { class: 'po-key po-key-ws' }), 'workspace ·'),
          h('span', { class: 'po-nowrap' }, h('span', { class: 'po-key po-key-other' }), 'other (small storages merged) ·'),
          this.timelineRecomputeKey,
          h('span', { class: 'po-nowrap' }, 'hover for details, click to select')),
        this.timelineNote, this.timelineHost),
      this.arenaPanel,
      h('section', { class: 'po-panel' },
        h('div', { class: 'po-panel-head' }, h('h3', {}, 'Dataflow graph'),
          h('div', { class: 'po-search-wrap' }, this.searchBox, this.searchResults), this.collapseBtn),
        this.dagLegend, this.dagNote, this.dagHost),
      h('div', { class: 'po-columns' },
        h('section', { class: 'po-panel' }, h('h3', {}, 'Planned order'), this.orderList, this.downloadBtn),
        h('section', { class: 'po-panel' }, this.liveTitle, this.liveList)),
      this.tooltip,
    );
    this.listenToLists();
    element.appendChild(this.root);
    this.element = element;
    // Every full-width panel is as wide as the chart's: one width, read once per change.
    this.resize = new ResizeObserver((entries) => {
      const w = Math.round(entries[entries.length - 1].contentRect.width);
      if (w === this.width || !this.last) return;
      this.width = w;
      this.redrawChart();
      this.redrawTimelines();
      if (this.last) this.drawArena(this.last);
    });
    this.resize.observe(this.chartHost);
    this.width = 0;
  }

  destroy() {
    this.resize.disconnect();
    if (this.dropHandlers) for (const [ev, fn] of this.dropHandlers) window.removeEventListener(ev, fn);
    this.root.remove();
  }

  // ---- controls: examples, file picker, drag and drop, paste, method and budget ----

  buildControls() {
    this.exampleSel = h('select', { class: 'po-select', 'aria-label': 'Example graph', 'data-testid': 'example' },
      h('option', { value: '' }, 'Examples…'),
      ...EXAMPLES.map((e) => h('option', { value: e.key }, e.label)));
    this.exampleSel.addEventListener('change', () => {
      const ex = EXAMPLES.find((e) => e.key === this.exampleSel.value);
      if (ex) this.load(JSON.stringify(ex.graph()), ex.label).catch(() => {});
    });
    this.fileInput = h('input', { type: 'file', accept: '.json,.onnx,application/json', hidden: true, 'data-testid': 'file' });
    this.fileInput.addEventListener('change', () => {
      const f = this.fileInput.files[0];
      if (f) this.loadFile(f);
      this.fileInput.value = '';
    });
    this.methodSel = h('select', { class: 'po-select', 'aria-label': 'Method', 'data-testid': 'method' });
    this.budget = h('input', { class: 'po-input', type: 'number', min: '1', step: '100', value: String(this.opts.budget_ms), 'aria-label': 'Budget (ms)', 'data-testid': 'budget' });
    this.limitBox = h('input', {
      class: 'po-input', type: 'text', placeholder: 'none', value: this.opts.memory_limit_bytes ?? '', 'aria-label': 'Memory limit', 'data-testid': 'limit-input',
      title: 'Plan the schedule within this many bytes that recomputes least: bytes or a unit (64MiB, 8GiB); empty for no limit',
    });
    this.pasteBox = h('textarea', { class: 'po-paste', placeholder: 'Paste a peakorder/1 graph (JSON) here, then press “Plan pasted graph”.', hidden: true, 'data-testid': 'paste' });
    this.pasteBtn = h('button', { class: 'po-btn', type: 'button', hidden: true, onclick: () => this.load(this.pasteBox.value, 'pasted graph').catch(() => {}) }, 'Plan pasted graph');
    this.fuseBtn = h('button', {
      class: 'po-btn po-toggle', type: 'button', 'aria-pressed': String(!!this.opts.fuse), 'data-testid': 'fuse',
      title: 'Fuse ops into as few kernels as possible without raising the planned peak, next to the Thunder-style baseline',
      onclick: () => this.setFuse(!this.opts.fuse).catch(() => {}),
    }, 'Fuse');
    const replan = h('button', { class: 'po-btn po-btn-primary', type: 'button', 'data-testid': 'plan', onclick: () => this.text && this.load(this.text, this.source).catch(() => {}) }, 'Plan');
    this.methodSel.addEventListener('change', () => { this.opts.method = this.methodSel.value; });
    this.budget.addEventListener('change', () => { this.opts.budget_ms = Number(this.budget.value) || DEFAULTS.budget_ms; });
    // Text as typed (the core reads "64MiB"); a number of bytes stays a number.
    this.limitBox.addEventListener('change', () => {
      const v = this.limitBox.value.trim();
      this.opts.memory_limit_bytes = v === '' ? null : /^\d+$/.test(v) ? Number(v) : v;
    });
    this.limitBox.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') {
        this.limitBox.dispatchEvent(new Event('change'));
        if (this.text) this.load(this.text, this.source).catch(() => {});
      }
    });
    const bar = h('div', { class: 'po-controls' },
      this.exampleSel,
      h('button', { class: 'po-btn', type: 'button', onclick: () => this.fileInput.click() }, 'Open file…'),
      h('button', { class: 'po-btn', type: 'button', onclick: () => { this.pasteBox.hidden = !this.pasteBox.hidden; this.pasteBtn.hidden = this.pasteBox.hidden; if (!this.pasteBox.hidden) this.pasteBox.focus(); } }, 'Paste JSON…'),
      h('span', { class: 'po-sep' }),
      h('label', { class: 'po-label' }, 'method ', this.methodSel),
      h('label', { class: 'po-label' }, 'budget ', this.budget, ' ms'),
      h('label', { class: 'po-label' }, 'memory limit ', this.limitBox),
      replan,
      this.fuseBtn,
      this.fileInput,
      h('span', { class: 'po-hint' }, 'or drop a .json or .onnx file anywhere'));
    // Drag and drop anywhere on the page.
    const over = (ev) => { ev.preventDefault(); this.root.classList.add('po-dropping'); };
    const leave = (ev) => { if (!ev.relatedTarget) this.root.classList.remove('po-dropping'); };
    const drop = (ev) => {
      ev.preventDefault();
      this.root.classList.remove('po-dropping');
      const f = ev.dataTransfer && ev.dataTransfer.files[0];
      if (f) this.loadFile(f);
      else if (ev.dataTransfer) {
        const t = ev.dataTransfer.getData('text/plain');
        if (t) this.load(t, 'dropped text').catch(() => {});
      }
    };
    // Pasting a graph anywhere but in a text field plans it.
    const paste = (ev) => {
      const tag = (ev.target && ev.target.tagName) || '';
      if (tag === 'TEXTAREA' || tag === 'INPUT') return;
      const t = ev.clipboardData && ev.clipboardData.getData('text/plain');
      if (t && t.trim().startsWith('{')) {
        ev.preventDefault();
        this.load(t, 'pasted graph').catch(() => {});
      }
    };
    this.dropHandlers = [['dragover', over], ['dragleave', leave], ['drop', drop], ['paste', paste]];
    for (const [ev, fn] of this.dropHandlers) window.addEventListener(ev, fn);
    return h('div', {}, bar, this.pasteBox, this.pasteBtn);
  }

  syncControls() {
    if (!this.controls || !this.methods) return;
    this.methodSel.textContent = '';
    for (const m of this.methods) this.methodSel.append(h('option', { value: m }, m));
    this.methodSel.value = this.opts.method || this.defaultMethod();
    this.budget.value = String(this.opts.budget_ms);
    this.limitBox.value = this.opts.memory_limit_bytes ?? '';
    this.fuseBtn.setAttribute('aria-pressed', String(!!this.opts.fuse));
  }

  /**
   * Turns fusion on or off for the graph shown: on asks the worker to fuse (once per plan), off
   * only redraws. Resolves when the view shows the new state.
   */
  async setFuse(on) {
    this.opts.fuse = !!on;
    if (this.fuseBtn) this.fuseBtn.setAttribute('aria-pressed', String(this.opts.fuse));
    const r = this.last;
    if (!r || this.root.dataset.state !== 'ready') return r;
    if (on && !r.fusion && !r.fusionError) {
      this.root.dataset.state = 'fusing';
      const status = this.status.textContent;
      this.setStatus(`Fusing ${r.source}…`);
      try {
        Object.assign(r, oldNames(await planner().fuse(this.text, this.planOptions())));
      } finally {
        // A newer load owns the view now; it draws (and sets the state) itself.
        if (this.last === r) {
          this.root.dataset.state = 'ready';
          this.setStatus(status);
        }
      }
      if (this.last !== r) return r;
    }
    this.drawSummary(r);
    this.drawDag(r);
    return r;
  }

  planOptions() {
    const options = { method: this.opts.method || this.defaultMethod(), budget_ms: Number(this.opts.budget_ms) || DEFAULTS.budget_ms };
    if (this.opts.max_states) options.max_states = this.opts.max_states;
    const limit = this.opts.memory_limit_bytes;
    if (limit !== null && limit !== undefined && limit !== '') {
      options.memory_limit_bytes = limit;
      if (this.opts.recompute_method) options.recompute_method = this.opts.recompute_method;
    }
    return options;
  }

  defaultMethod() {
    // Prefer the strongest method the core offers; the list grows as planners land.
    for (const m of ['auto', 'best', 'greedy']) if (this.methods && this.methods.includes(m)) return m;
    return this.methods ? this.methods[this.methods.length - 1] : 'greedy';
  }

  loadFile(file) {
    if (/\.onnx$/i.test(file.name)) {
      this.loadOnnx(file).catch(() => {});
      return;
    }
    file.text().then((t) => this.load(t, file.name)).catch(() => {});
  }

  /** An ONNX model: read (with progress on large files), imported and planned in the worker. */
  async loadOnnx(file) {
    const seq = ++this.seq;
    const name = file.name;
    const fail = (msg) => {
      this.root.dataset.state = 'error';
      this.setStatus(msg, 'error');
    };
    if (file.size > MAX_ONNX_BYTES) {
      fail(`${name} is ${formatBytes(file.size)}: too large to import in this tab (at most ${formatBytes(MAX_ONNX_BYTES)}, ` +
        'as the model, its graph and the planner share one 4 GiB WebAssembly memory). Import it with ' +
        `the command line, \`peakorder import onnx ${name} -o graph.json\`, and open the graph JSON here.`);
      return null;
    }
    this.root.dataset.state = 'importing';
    try {
      const bytes = new Uint8Array(file.size);
      let at = 0;
      const reader = file.stream().getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes.set(value, at);
        at += value.length;
        if (seq !== this.seq) return null;
        this.setStatus(`Reading ${name}: ${Math.floor((100 * at) / Math.max(file.size, 1))}% of ${formatBytes(file.size)}…`);
      }
      this.setStatus(`Importing ${name} (${formatBytes(file.size)}) in the worker…`);
      const { text } = await planner().importOnnx(bytes, name);
      if (seq !== this.seq) return null;
      return await this.load(text, name);
    } catch (e) {
      if (seq !== this.seq) return null;
      const big = e instanceof RangeError || /memory|allocation/i.test(String(e && e.message));
      fail(big
        ? `${name}: too large to import in this tab (${e.message}); import it with \`peakorder import onnx\` and open the graph JSON`
        : `Cannot import ${name}: ${e.message}${e.code ? ` [${e.code}]` : ''}`);
      return null;
    }
  }

  async idle() {
    const p = planner();
    const info = await p.ready;
    this.methods = info.methods;
    this.syncControls();
    this.setStatus(`Load a graph: pick an example, open or drop a .json file, or paste JSON. (planner ${info.version}, ${p.mode})`);
    return null;
  }

  setStatus(msg, kind = 'info') {
    this.status.textContent = msg;
    this.status.className = `po-status po-status-${kind}`;
  }

  // ---- planning ----

  async load(text, source) {
    const seq = ++this.seq;
    this.text = text;
    this.source = source;
    // The picker shows an example only while one is shown (so picking it again reloads it).
    if (this.exampleSel && !EXAMPLES.some((e) => e.label === source)) this.exampleSel.value = '';
    this.root.dataset.state = 'planning';
    this.setStatus(`Planning ${source}…`);
    const p = planner();
    try {
      const tStart = performance.now();
      const info = await p.ready;
      this.methods = info.methods;
      if (this.controls && !this.methodSel.options.length) this.syncControls();
      const options = this.planOptions();
      const t0 = performance.now();
      const r = await p.analyze(text, options, !!this.opts.fuse, this.opts.plan || null);
      if (seq !== this.seq) return null; // a newer load superseded this one
      r.wall_ms = performance.now() - t0;
      // Waiting for the planner (its worker and wasm starting, on the first load) and the whole
      // round trip to the worker, messages included.
      r.timings.init_ms = t0 - tStart;
      r.timings.worker_ms = r.wall_ms;
      r.source = source;
      oldNames(r);
      this.last = r;
      this.draw(r);
      this.root.dataset.state = 'ready';
      const how = r.plan.given ? `the plan given${r.plan.method !== 'given' ? ` (${r.plan.method})` : ''}` : `planned with ${r.plan.method} in ${formatMs(r.plan.elapsedMs)}`;
      const limit = typeof r.plan.memoryLimitBytes === 'number' ? ` within ${formatBytes(r.plan.memoryLimitBytes)}` : '';
      this.setStatus(`${source}: ${plural(r.model.ops.length, 'op')}, ${plural(r.model.tensors.length, 'tensor')} · ${how}${limit} (planner ${info.version}, ${p.mode})`);
      // The toggle was pressed while this plan was on its way: fuse it now.
      if (this.opts.fuse && !r.fusion && !r.fusionError) await this.setFuse(true);
      return r;
    } catch (e) {
      if (seq !== this.seq) return null;
      this.root.dataset.state = 'error';
      this.setStatus(`Cannot plan ${source}: ${e.message}${e.code ? ` [${e.code}]` : ''}`, 'error');
      throw e;
    }
  }

  draw(r) {
    // Each panel's drawing time goes in `timings` (docs/web.md quotes them).
    const t = [performance.now()];
    const lap = () => t.push(performance.now()) && t[t.length - 1] - t[t.length - 2];
    this.selected = null;
    this.closeSearch();
    this.width = this.chartHost.clientWidth;
    this.drawSummary(r);
    this.redrawChart();
    r.timings.chart_ms = lap();
    this.redrawTimelines();
    r.timings.timeline_ms = lap();
    this.drawArena(r);
    r.timings.arena_ms = lap();
    this.drawDag(r);
    r.timings.dag_ms = lap();
    this.drawLists(r);
    r.timings.lists_ms = lap();
    this.downloadBtn.disabled = false;
    r.timings.draw_ms = t[t.length - 1] - t[0];
  }

  drawSummary(r) {
    const { plan, program } = r;
    const inputs = plan.inputsBytes;
    const card = (title, value, sub, testid, cls = '') => h('div', { class: `po-card ${cls}` },
      h('div', { class: 'po-card-title' }, title),
      h('div', { class: 'po-card-value', 'data-testid': testid }, value),
      h('div', { class: 'po-card-sub', 'data-testid': `${testid}-sub` }, sub));
    const progPeak = program ? program.peakBytes : plan.programOrderPeakBytes;
    const saved = progPeak != null ? progPeak - plan.peakBytes : null;
    const hasBound = typeof plan.lowerBoundBytes === 'number';
    const gap = hasBound ? plan.peakBytes - plan.lowerBoundBytes : null;
    const limited = typeof plan.memoryLimitBytes === 'number';
    const reruns = r.stepRun ? r.stepRun.reduce((a, k) => a + (k > 1), 0) : 0;
    const optimalSub = limited
      ? (plan.optimal ? 'the added cost is a proven minimum for this limit' : `added cost ${formatCost(plan.addedCost)}, lower bound ${formatCost(plan.addedCostLowerBound)}`)
      : plan.optimal ? 'planned peak is a proven minimum' : hasBound ? `gap to the lower bound: ${formatBytes(gap)}` : 'no lower bound given';
    this.summary.textContent = '';
    this.summary.append(
      card('Program order peak', progPeak != null ? formatBytes(progPeak) : 'n/a',
        progPeak != null ? `${formatDelta(progPeak - inputs)} above inputs` : (r.programError || 'the file order is not a valid order'),
        'program-peak', 'po-card-program'),
      card(`Planned peak (${plan.method})`, formatBytes(plan.peakBytes),
        `${formatDelta(plan.peakBytes - inputs)} above inputs${saved > 0 ? ` · saves ${formatBytes(saved)} (${((100 * saved) / progPeak).toFixed(0)}%)` : saved < 0 ? ` · ${formatBytes(-saved)} more than the program order` : ''}`,
        'planned-peak', 'po-card-planned'),
      card('Lower bound', hasBound ? formatBytes(plan.lowerBoundBytes) : 'n/a',
        hasBound ? `${formatDelta(plan.lowerBoundBytes - inputs)} above inputs${limited || reruns ? ' (any schedule)' : ''}` : 'not given with the plan', 'lower-bound'),
      card('Optimal?', plan.optimal ? 'proven' : 'not proven', optimalSub,
        'optimal', plan.optimal ? 'po-card-good' : 'po-card-warn'),
      card('Inputs', formatBytes(inputs), 'memory at the start', 'inputs'),
      card('Planning time', plan.given && !plan.elapsedMs ? 'n/a' : formatMs(plan.elapsedMs),
        `${plural(r.model.ops.length, 'op')} · ${plan.given ? 'the plan was given' : `budget ${formatMs(Number(this.opts.budget_ms) || DEFAULTS.budget_ms)}`}`, 'planning-time'),
    );
    if (limited || reruns) this.summary.append(...this.recomputeCards(r, card, reruns));
    if (this.opts.fuse) this.summary.append(...this.fusionCards(r, card));
  }

  /** The memory limit and what meeting it costs: the recomputed runs and their added cost. */
  recomputeCards(r, card, reruns) {
    const { plan } = r;
    const cards = [];
    const ops = r.stepRun ? new Set(plan.order.filter((_, k) => r.stepRun[k] > 1)).size : 0;
    if (typeof plan.memoryLimitBytes === 'number') {
      const least = plan.leastLimitBytes;
      const bound = plan.leastLimitLowerBoundBytes;
      cards.push(card('Memory limit', formatBytes(plan.memoryLimitBytes),
        `${formatBytes(plan.memoryLimitBytes - plan.peakBytes)} to spare · least limit ${typeof least === 'number' ? formatBytes(least) : 'n/a'}`
        + `${typeof bound === 'number' && bound !== least ? ` (none below ${formatBytes(bound)})` : ''}${plan.leastLimitOp ? `, forced by ${plan.leastLimitOp}` : ''}`,
        'memory-limit', 'po-card-limit'));
    }
    const added = typeof plan.addedCost === 'number' ? plan.addedCost : null;
    const how = plan.recomputeMethod === 'order' ? 'an order fits: nothing recomputed'
      : `${plural(reruns, 'run')} again of ${plural(ops, 'op')}${plan.recomputeMethod ? ` (${plan.recomputeMethod})` : ''}`;
    cards.push(card('Added cost (recomputation)', added !== null ? formatCost(added) : `${plural(reruns, 'run')}`,
      `${how}${typeof plan.addedCostLowerBound === 'number' && plan.recomputeMethod !== 'order' ? ` · lower bound ${formatCost(plan.addedCostLowerBound)}` : ''}`,
      'added-cost', 'po-card-recompute'));
    return cards;
  }

  /** Kernels before -> after and the peak, memory-aware fusion next to the Thunder-style baseline. */
  fusionCards(r, card) {
    const f = r.fusion;
    if (!f) {
      const e = r.fusionError || { message: 'fusing…' };
      return [card('Fusion', 'n/a', `${e.message}${e.code ? ` [${e.code}]` : ''}`, 'fused-kernels', 'po-card-fused po-card-warn')];
    }
    const b = f.baseline;
    const limit = f.limitBytes;
    const over = (s) => (s.peakAfterBytes > limit
      ? `${formatBytes(s.peakAfterBytes - limit)} over the limit`
      : s.peakAfterBytes < limit ? `${formatBytes(limit - s.peakAfterBytes)} under the limit` : 'at the limit');
    return [
      card('Kernels: memory-aware fusion', `${f.opsBefore} → ${f.opsAfter}`,
        `fused peak ${formatBytes(f.peakAfterBytes)} · ${over(f)} (${formatBytes(limit)})`,
        'fused-kernels', 'po-card-fused'),
      card('Kernels: Thunder-style baseline', `${b.opsBefore} → ${b.opsAfter}`,
        `peak ${formatBytes(b.peakAfterBytes)} · ${over(b)}`,
        'baseline-kernels', `po-card-baseline${b.withinLimit ? '' : ' po-card-over'}`),
    ];
  }

  redrawChart() {
    const r = this.last;
    if (!r) return;
    const orderIds = r.plan.order;
    const programIds = r.model.ops.map((o) => o.id);
    const series = [];
    if (r.program) series.push({ key: 'program', label: 'program', sim: r.program, order: programIds });
    const recomputeSteps = this.recomputeSteps(r);
    series.push({ key: 'planned', label: 'planned', sim: r.planned, order: orderIds, recomputeSteps, runs: r.stepRun });
    const opIx = new Map(r.model.ops.map((o, v) => [o.id, v]));
    const limit = typeof r.plan.memoryLimitBytes === 'number' ? r.plan.memoryLimitBytes : null;
    drawChart(this.chartHost, {
      series,
      lowerBound: r.plan.lowerBoundBytes,
      inputsBytes: r.plan.inputsBytes,
      memoryLimit: limit,
      height: this.opts.chartHeight,
      width: this.width,
      onHover: (i, ev) => {
        if (i === null) {
          this.hideTip();
          if (this.dag) this.dag.highlight(null);
          return;
        }
        const rows = series.filter((s) => i < s.order.length).map((s) => {
          const run = s.runs && s.runs[i] > 1 ? ` <span class="po-rerun">run ${s.runs[i]}</span>` : '';
          return `<tr><th><span class="po-key po-key-${s.key}"></span>${s.label}</th><td>${escapeHtml(s.order[i])}${run}</td><td>${formatBytes(s.sim.during[i])}</td><td>${formatBytes(s.sim.after[i])}</td></tr>`;
        });
        this.showTip(`<b>step ${i + 1}</b><table><tr><th></th><th>op</th><th>during</th><th>after</th></tr>${rows.join('')}</table>`, ev);
        if (this.dag) this.dag.highlight(i < orderIds.length ? opIx.get(orderIds[i]) : null);
      },
    });
    this.legend.textContent = '';
    for (const s of series) {
      this.legend.append(h('span', { class: `po-key po-key-${s.key}` }),
        h('span', {}, `${s.label} order: peak ${formatBytes(s.sim.peakBytes)} ${s.describe}`));
    }
    this.legend.append(h('span', { class: 'po-key po-key-inputs' }), 'inputs');
    if (r.plan.lowerBoundBytes > r.plan.inputsBytes) this.legend.append(h('span', { class: 'po-key po-key-bound' }), 'lower bound');
    // Each key with its words, so that a line break never parts them.
    if (limit !== null) {
      this.legend.append(h('span', { class: 'po-nowrap' }, h('span', { class: 'po-key po-key-limit' }),
        h('span', { 'data-testid': 'legend-limit' }, `memory limit ${formatBytes(limit)}`)));
    }
    if (recomputeSteps.length) {
      this.legend.append(h('span', { class: 'po-nowrap' }, h('span', { class: 'po-key po-key-recompute' }),
        h('span', { 'data-testid': 'legend-recompute' }, `recomputed step (an op's 2nd+ run): ${plural(recomputeSteps.length, 'step')}`)));
    }
  }

  /** The planned steps that run an op again (its second or later run). */
  recomputeSteps(r) {
    const out = [];
    if (r.stepRun) for (let k = 0; k < r.stepRun.length; k++) if (r.stepRun[k] > 1) out.push(k);
    return out;
  }

  /** The regions the DAG outlines: the `regions` option, else memory-aware fusion's when on. */
  regionsOf(r) {
    if (this.opts.regions) return this.opts.regions;
    return this.opts.fuse ? r.regions : null;
  }

  /** The op running at the planned peak (an op index), or -1 when the peak is the start. */
  peakOp(r) {
    const k = r.planned.peakStep;
    if (typeof k !== 'number' || k < 0) return -1;
    return this.opIndex(r).get(r.plan.order[k]) ?? -1;
  }

  opIndex(r) {
    if (!r.opIx) r.opIx = new Map(r.model.ops.map((o, v) => [o.id, v]));
    return r.opIx;
  }

  tensorIndex(r) {
    if (!r.tensorIx) r.tensorIx = new Map(r.model.tensors.map((t, i) => [t.id, i]));
    return r.tensorIx;
  }

  /** Bytes live at the planned peak made inside each group (opens those groups first). */
  liveWeight(r) {
    const w = new Float64Array(r.tree.groups.length);
    for (const t of this.liveAtPeak(r)) {
      const p = r.model.tensors[t].producer;
      if (p < 0) continue;
      for (let g = r.tree.opGroup[p]; g >= 0; g = r.tree.groups[g].parent) w[g] += r.model.tensors[t].bytes;
    }
    return w;
  }

  drawDag(r) {
    const regions = this.regionsOf(r);
    const whole = !!r.layout;
    const peakOp = this.peakOp(r);
    if (!whole && !r.tree) {
      r.tree = buildGroups(r.model);
      r.expanded = defaultExpanded(r.tree, peakOp, GROUP_BUDGET, this.liveWeight(r));
    }
    this.collapseBtn.hidden = whole;
    this.regionKey.hidden = !(regions && regions.length);
    this.dag = drawDag(this.dagHost, {
      model: r.model,
      rank: r.rank,
      tree: whole ? null : r.tree,
      fullLayout: r.layout,
      expanded: r.expanded,
      liveAtPeak: this.liveAtPeak(r),
      peakOp,
      regions,
      hover: (kind, ix, ev) => this.hoverItem(kind, ix, ev),
      select: (kind, ix) => this.selectOp(ix),
      rendered: () => this.dagNoteFor(r),
      width: this.width,
    });
    this.dagNoteFor(r);
  }

  dagNoteFor(r) {
    const n = r.model.ops.length;
    const zoom = 'ctrl+scroll (or pinch) zooms, a drag pans, a double click fits';
    if (r.layout) {
      this.dagNote.textContent = `${plural(n, 'op')}, ${plural(r.model.edges.length, 'edge')}; hover an op or an edge for details, click an op to select it; ${zoom}.`;
      return;
    }
    const v = this.dag ? this.dag.visible() : { nodes: 0, groups: 0 };
    const by = r.model.ops.some((o) => o.scope) ? 'scope (meta.scope)'
      : r.tree.groups.some((g, i) => i > 0 && !g.chunk) ? 'op-id prefix' : 'runs of the program order';
    this.dagNote.textContent = `${plural(n, 'op')} grouped by ${by}: ${plural(v.nodes, 'node')} shown, ${plural(v.groups, 'group')} closed; `
      + `the groups around the planned peak are open. Click a group (+) to open it and an open group's header (▾) to close it; find any op or tensor by its id above; ${zoom}.`;
  }

  liveAtPeak(r) {
    const tix = new Map(r.model.tensors.map((t, i) => [t.id, i]));
    return (r.planned.liveAtPeak || []).map((id) => tix.get(id)).filter((i) => i !== undefined);
  }

  drawLists(r) {
    // Rows as HTML (rows.js draws only those in view of a long list), and listeners on the
    // lists (below), so that thousands of ops cost little.
    // One row per step: in a schedule an op has a row for each run, the later ones marked.
    const n = r.model.ops.length;
    const opIx = this.opIndex(r);
    this.orderRows.set(r.plan.order.length, (k) => {
      const id = r.plan.order[k];
      const run = r.stepRun ? r.stepRun[k] : 1;
      const colour = viridis(n > 1 ? r.rank[opIx.get(id)] / (n - 1) : 0);
      return `<li data-op="${escapeHtml(id)}" data-step="${k}"${run > 1 ? ` class="po-li-rerun" data-run="${run}"` : ''}><span class="po-num">${k + 1}.</span><span class="po-swatch" style="background:${colour}"></span><code>${escapeHtml(id)}</code>${run > 1 ? `<span class="po-rerun" title="recomputed: run ${run} of this op">run ${run}</span>` : ''}<span class="po-dim"> ${formatBytes(r.planned.during[k])}</span></li>`;
    });
    const live = this.liveAtPeak(r).sort((a, b) => r.model.tensors[b].bytes - r.model.tensors[a].bytes);
    r.liveRow = new Map(live.map((t, i) => [t, i]));
    const total = live.reduce((a, t) => a + r.model.tensors[t].bytes, 0);
    const k = r.planned.peakStep;
    this.liveTitle.textContent = `Live at the planned peak (${plural(live.length, 'tensor')}, ${formatBytes(total)}${typeof k === 'number' && k >= 0 && r.plan.order[k] ? `, while ${r.plan.order[k]} runs` : ', at the start'})`;
    this.liveRows.set(live.length, (i) => {
      const tensor = r.model.tensors[live[i]];
      return `<li data-tensor="${escapeHtml(tensor.id)}"><code>${escapeHtml(tensor.id)}</code><span class="po-dim"> ${formatBytes(tensor.bytes)}${tensor.input ? ' · graph input' : ''}${tensor.output ? ' · graph output' : ''}</span></li>`;
    });
  }

  /** Hover and click on the order and live lists (one listener per list). */
  listenToLists() {
    const item = (ev, attr) => {
      const li = ev.target.closest && ev.target.closest(`li[${attr}]`);
      const r = this.last;
      if (!li || !r) return null;
      const ix = (attr === 'data-op' ? this.opIndex(r) : this.tensorIndex(r)).get(li.getAttribute(attr));
      return ix === undefined ? null : { li, ix };
    };
    this.orderList.addEventListener('mouseover', (ev) => {
      const it = item(ev, 'data-op');
      if (!it) return;
      this.hoverItem('op', it.ix, ev);
      if (this.dag) this.dag.highlight(it.ix);
    });
    this.liveList.addEventListener('mouseover', (ev) => {
      const it = item(ev, 'data-tensor');
      if (it) this.hoverItem('tensor', it.ix, ev);
    });
    for (const list of [this.orderList, this.liveList]) {
      list.addEventListener('mouseleave', () => {
        this.hideTip();
        if (this.dag) this.dag.highlight(null);
      });
    }
    for (const list of [this.orderList, this.liveList]) list.addEventListener('scroll', () => requestAnimationFrame(() => this.markLists()));
    this.orderList.addEventListener('click', (ev) => {
      const it = item(ev, 'data-op');
      if (it) this.selectOp(it.ix);
    });
    this.liveList.addEventListener('click', (ev) => {
      const it = item(ev, 'data-tensor');
      if (it) this.selectTensor(it.ix);
    });
  }

  // ---- the memory timeline ----

  setTimelineMode(mode) {
    this.timelineMode = mode;
    for (const b of this.timelineToggle.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.mode === mode));
    this.redrawTimelines();
  }

  redrawTimelines() {
    const r = this.last;
    if (!r) return;
    if (!r.bands) {
      const t0 = performance.now();
      const opIx = this.opIndex(r);
      r.bands = { planned: buildBands(r.model, r.plan.order.map((id) => opIx.get(id)), r.planned) };
      if (r.program) r.bands.program = buildBands(r.model, r.model.ops.map((_, v) => v), r.program);
      r.timings.bands_ms = performance.now() - t0;
    }
    // Without a valid program order there is only the planned timeline.
    for (const b of this.timelineToggle.querySelectorAll('button')) b.disabled = b.dataset.mode !== 'planned' && !r.bands.program;
    let keys = this.timelineMode === 'both' ? ['program', 'planned'] : [this.timelineMode];
    keys = keys.filter((k) => r.bands[k]);
    if (!keys.length) keys = ['planned'];
    const max = Math.max(...keys.map((k) => r.bands[k].peakBytes)) * 1.05;
    this.timelineHost.textContent = '';
    this.timelines = {};
    const orderIds = { planned: r.plan.order, program: r.model.ops.map((o) => o.id) };
    this.timelineRecomputeKey.hidden = !keys.some((k) => r.bands[k].recomputeSteps.length);
    for (const k of keys) {
      const host = h('div', { class: 'po-timeline', 'data-order': k });
      this.timelineHost.append(host);
      this.timelines[k] = drawTimeline(host, r.bands[k], {
        max,
        label: `${k} order`,
        height: keys.length > 1 ? 230 : 320,
        width: this.width,
        order: orderIds[k],
        hover: (band, step, ev) => this.hoverBand(k, band, step, ev),
        click: (band) => (band.kind === 'storage' ? this.selectTensor(band.tensor) : this.selectOp(band.op)),
      });
    }
    const notes = keys.map((k) => {
      const b = r.bands[k];
      const again = b.recomputeSteps.length ? `, ${plural(b.recomputeSteps.length, 'step')} recomputing` : '';
      return `${k} order: ${plural(b.bands.length, 'band')} of their own${b.other.count ? `, ${plural(b.other.count, 'smaller storage')} merged into "other"` : ''}${again}`;
    });
    this.timelineNote.textContent = `${notes.join(' · ')}.${r.program ? '' : ' The file order is not a valid order, so only the planned order is shown.'}`;
    this.applySelection();
  }

  /** The arena: the `arena` option (a `peakorder layout --json` or npm `layout()` object), or the
   * planner's layout. */
  drawArena(r) {
    // A given layout may be the CLI's snake_case JSON or the npm layout()'s camelCase object.
    const layout = this.opts.arena ? fromCli(this.opts.arena) : r.arena || null;
    this.arenaPanel.hidden = !layout;
    this.arena = null;
    if (!layout) return;
    const same = layout.order.length === r.plan.order.length && layout.order.every((id, k) => id === r.plan.order[k]);
    this.arenaNote.textContent = `${formatBytes(layout.arenaBytes)} arena for ${plural(layout.buffers.length, 'buffer')} (${layout.method}${layout.align > 1 ? `, aligned to ${layout.align} B` : ''}): `
      + `${layout.optimal ? 'proven optimal' : `lower bound ${formatBytes(layout.lowerBoundBytes)}`}; `
      + `laid out for ${same ? 'the planned order' : `its own order of ${plural(layout.order.length, 'op')}`} (peak ${formatBytes(layout.peakBytes)}).`;
    const tix = this.tensorIndex(r);
    const opIx = this.opIndex(r);
    this.arena = drawArena(this.arenaHost, layout, {
      width: this.width,
      hover: (rect, step, ev) => this.hoverRect(layout, rect, step, ev),
      click: (rect) => (rect.kind === 'tensor' ? tix.has(rect.id) && this.selectTensor(tix.get(rect.id)) : opIx.has(rect.id) && this.selectOp(opIx.get(rect.id))),
    });
    this.applySelection();
  }

  hoverRect(layout, rect, step, ev) {
    const r = this.last;
    if (!rect || !r) {
      this.hideTip();
      return;
    }
    const stepOf = (x) => `step ${x + 1} (${escapeHtml(layout.order[x] ?? '')})`;
    const life = `${rect.x0 === 0 && rect.kind === 'tensor' ? 'the start' : stepOf(rect.x0)} to ${stepOf(Math.max(rect.x0, rect.x1 - 1))}`;
    this.showTip(`<b>${rect.kind === 'workspace' ? `workspace of ${escapeHtml(rect.id)}` : `tensor ${escapeHtml(rect.id)}`}</b>${table([
      ['offset', `${count(rect.offset)} – ${count(rect.offset + rect.bytes)} B`],
      ['size', formatBytes(rect.bytes)],
      ['life', life],
    ])}`, ev);
  }

  hoverBand(key, band, step, ev) {
    const r = this.last;
    if (!band || !r) {
      this.hideTip();
      if (this.dag) this.dag.highlight(null);
      return;
    }
    const data = r.bands[key];
    const order = key === 'planned' ? r.plan.order : null;
    const opAt = (k) => escapeHtml(order ? order[k] : r.model.ops[k].id);
    if (band === 'other') {
      this.showTip(`<b>other</b>${table([
        ['holds', `${plural(data.other.count, 'small storage')}, merged`],
        [`at step ${step + 1}`, `${formatBytes(data.other.height[step])} (while ${opAt(step)} runs)`],
      ])}`, ev);
      return;
    }
    const rerun = band.run > 1 ? ` <span class="po-rerun">run ${band.run}</span>` : '';
    if (band.kind === 'workspace') {
      const o = r.model.ops[band.op];
      this.showTip(`<b>workspace of ${escapeHtml(o.id)}</b>${rerun}${table([
        ['size', formatBytes(band.bytes)],
        ['life', `step ${band.start + 1} of the ${key} order, while the op runs`],
      ])}`, ev);
      if (this.dag) this.dag.highlight(band.op);
      return;
    }
    const t = r.model.tensors[band.tensor];
    const never = band.end >= data.steps && (t.pinned || (t.producer < 0 && r.model.usersStart[band.tensor + 1] === r.model.usersStart[band.tensor]));
    const from = t.producer < 0 ? 'the start (graph input)' : `step ${band.start + 1} (${opAt(band.start)})`;
    const to = never ? `the end (${t.output ? 'graph output' : t.producer < 0 ? 'the caller keeps it' : 'kept'})` : `step ${band.end} (${opAt(band.end - 1)})`;
    const users = t.consumers.map((c) => escapeHtml(r.model.ops[c].id));
    const rows = [
      ['size', `${formatBytes(t.bytes)}${t.bytes >= 512 ? ` (${count(t.bytes)} B)` : ''}`],
      ['produced by', t.producer >= 0 ? escapeHtml(r.model.ops[t.producer].id) : 'graph input'],
      ['used by', users.length ? `${users.slice(0, 6).join(', ')}${users.length > 6 ? ` and ${users.length - 6} more` : ''}` : '–'],
      [`life (${key})`, `${from} to ${to}: ${plural(band.end - band.start, 'step')}`],
      ['live at peak', band.live ? '<b class="po-red">yes</b>' : 'no'],
    ];
    if (t.shape) rows.splice(1, 0, ['shape', `${escapeHtml(JSON.stringify(t.shape))} ${escapeHtml(t.dtype)}`]);
    if (band.run > 1) rows.splice(3, 0, ['made again', `by run ${band.run} of ${escapeHtml(r.model.ops[t.producer].id)} (recomputed)`]);
    this.showTip(`<b>tensor ${escapeHtml(t.id)}</b>${rerun}${table(rows)}<div class="po-dim">click to select it in the graph and the lists</div>`, ev);
    if (this.dag) this.dag.highlight(t.producer >= 0 ? t.producer : null);
  }

  // ---- selection, shared by the timeline, the graph and the lists ----

  selectTensor(t) {
    this.selected = { kind: 'tensor', ix: t };
    if (this.dag) this.dag.selectTensor(t);
    this.applySelection();
  }

  selectOp(v) {
    this.selected = { kind: 'op', ix: v };
    if (this.dag) this.dag.selectOp(v);
    this.applySelection();
  }

  /** Selects an op or a tensor by id; false when there is none. */
  selectById(kind, id) {
    const r = this.last;
    if (!r) return false;
    const ix = (kind === 'op' ? this.opIndex(r) : this.tensorIndex(r)).get(id);
    if (ix === undefined) return false;
    if (kind === 'op') this.selectOp(ix);
    else this.selectTensor(ix);
    return true;
  }

  /** The timelines' step cursor: at op v's step in each order, else at the selected op's. */
  cursorAt(v) {
    const r = this.last;
    const s = this.selected;
    const at = v !== null && v !== undefined ? v : s && s.kind === 'op' ? s.ix : null;
    for (const [k, tl] of Object.entries(this.timelines)) tl.cursor(at === null || !r ? null : k === 'planned' ? r.firstStep[at] : at);
  }

  /** Marks the selection in the timelines and the lists (the graph marks it itself). */
  applySelection() {
    const r = this.last;
    const s = this.selected;
    for (const tl of Object.values(this.timelines)) tl.select(s && s.kind === 'tensor' ? s.ix : null);
    if (this.arena) this.arena.select(s && s.kind === 'tensor' && r ? r.model.tensors[r.model.tensors[s.ix].root].id : null);
    this.cursorAt(null);
    this.marked = s;
    this.markLists();
    if (!s || !r) return;
    if (s.kind === 'op') this.orderRows.reveal(r.firstStep[s.ix]);
    else if (r.liveRow && r.liveRow.has(s.ix)) this.liveRows.reveal(r.liveRow.get(s.ix));
    this.markLists(true);
  }

  /** Marks the selected row of the lists (again after they scroll and redraw rows). */
  markLists(scroll = false) {
    for (const li of this.root.querySelectorAll('li.po-sel')) li.classList.remove('po-sel');
    const r = this.last;
    const s = this.marked;
    if (!s || !r) return;
    const sel = s.kind === 'op' ? `li[data-op="${CSS.escape(r.model.ops[s.ix].id)}"]` : `li[data-tensor="${CSS.escape(r.model.tensors[s.ix].id)}"]`;
    for (const li of this.root.querySelectorAll(sel)) {
      li.classList.add('po-sel');
      if (scroll) li.scrollIntoView({ block: 'nearest' });
    }
  }

  // ---- search ----

  search(query) {
    const r = this.last;
    const q = query.trim().toLowerCase();
    this.searchResults.textContent = '';
    if (!q || !r) {
      this.searchResults.hidden = true;
      return [];
    }
    // Exact ids first, then ids that start with the text, then ids that contain it.
    const rankOf = (id) => {
      const s = id.toLowerCase();
      return s === q ? 0 : s.startsWith(q) ? 1 : s.includes(q) ? 2 : -1;
    };
    const find = (items, kind, limit) => {
      const hits = [];
      items.forEach((x, i) => {
        const k = rankOf(x.id);
        if (k >= 0) hits.push({ kind, ix: i, id: x.id, k });
      });
      hits.sort((a, b) => a.k - b.k || a.ix - b.ix);
      return { hits: hits.slice(0, limit), total: hits.length };
    };
    const ops = find(r.model.ops, 'op', 10);
    const tensors = find(r.model.tensors, 'tensor', 6);
    const all = [...ops.hits, ...tensors.hits].sort((a, b) => a.k - b.k);
    for (const m of all) {
      const sub = m.kind === 'op' ? r.model.ops[m.ix].kind : formatBytes(r.model.tensors[m.ix].bytes);
      const li = h('li', { 'data-kind': m.kind, 'data-id': m.id },
        h('span', { class: 'po-dim' }, `${m.kind} `), h('code', {}, m.id), h('span', { class: 'po-dim' }, ` ${sub}`));
      li.addEventListener('mousedown', (ev) => ev.preventDefault()); // keep the focus in the box
      li.addEventListener('click', () => {
        if (m.kind === 'op') this.selectOp(m.ix);
        else this.selectTensor(m.ix);
        this.closeSearch();
      });
      this.searchResults.append(li);
    }
    const more = ops.total - ops.hits.length + tensors.total - tensors.hits.length;
    if (!all.length) this.searchResults.append(h('li', { class: 'po-dim po-none' }, 'no op or tensor id contains this'));
    else if (more > 0) this.searchResults.append(h('li', { class: 'po-dim po-none' }, `and ${count(more)} more: type more of the id`));
    this.searchResults.hidden = false;
    return all;
  }

  closeSearch() {
    this.searchResults.hidden = true;
  }

  /** Closes every group but those the view opens at first. */
  resetGroups() {
    const r = this.last;
    if (!r || !r.tree) return;
    r.expanded = defaultExpanded(r.tree, this.peakOp(r), GROUP_BUDGET, this.liveWeight(r));
    this.drawDag(r);
    this.applySelection();
  }

  // ---- hover details ----

  hoverItem(kind, ix, ev) {
    const r = this.last;
    // An op under the pointer (in the graph or the lists) is marked in the timelines too.
    this.cursorAt(kind === 'op' ? ix : null);
    if (!kind || !r) {
      this.hideTip();
      return;
    }
    const T = r.model.tensors;
    const tname = (t) => `${escapeHtml(T[t].id)} <span class="po-dim">${formatBytes(T[t].bytes)}</span>`;
    if (kind === 'group') {
      const gr = r.tree.groups[ix.group];
      const ranks = [];
      for (let v = 0; v < r.model.ops.length; v++) if (ix.vis.rep[v] === ix.node) ranks.push(r.firstStep[v]);
      const lo = Math.min(...ranks) + 1;
      const hi = Math.max(...ranks) + 1;
      const rows = [
        ['ops', count(gr.count)],
        ['planned order', `steps ${count(lo)}–${count(hi)}`],
        ['live at peak', `${plural(ix.vis.liveCount[ix.node], 'tensor')} made here`],
      ];
      if (gr.key && !gr.chunk) rows.unshift(['scope', escapeHtml(gr.key)]);
      this.showTip(`<b>group ${escapeHtml(gr.name)}</b>${table(rows)}<div class="po-dim">click to open</div>`, ev);
      return;
    }
    if (kind === 'op') {
      const o = r.model.ops[ix];
      const k = r.firstStep[ix];
      const again = [];
      for (let j = k + 1; j < r.plan.order.length; j++) if (r.plan.order[j] === o.id) again.push(j);
      const rows = [
        ['kind', escapeHtml(o.kind || '–')],
        ['inputs', o.inputs.map(tname).join(', ') || '–'],
        ['outputs', o.outputs.map(tname).join(', ') || '–'],
        ['workspace', formatBytes(o.workspace)],
        ['program order', `step ${ix + 1}${r.program ? ` · during ${formatBytes(r.program.during[ix])}` : ''}`],
        ['planned order', `step ${k + 1} · during ${formatBytes(r.planned.during[k])}, after ${formatBytes(r.planned.after[k])}`],
      ];
      if (again.length) {
        rows.push(['recomputed', again.slice(0, 6).map((j, i) => `run ${i + 2} at step ${j + 1}`).join(', ') + (again.length > 6 ? ` and ${again.length - 6} more` : '')]);
      }
      if (o.fusible) rows.push(['fusible', escapeHtml(o.fusible)]);
      const region = (this.regionsOf(r) || []).find((g) => g.includes(o.id));
      if (region) rows.push(['fused with', region.filter((id) => id !== o.id).map(escapeHtml).join(', ')]);
      this.showTip(`<b>op ${escapeHtml(o.id)}</b>${table(rows)}`, ev);
    } else {
      const t = T[ix];
      const live = new Set(r.planned.liveAtPeak || []);
      const rows = [
        ['size', `${formatBytes(t.bytes)}${t.bytes >= 512 ? ` (${count(t.bytes)} B)` : ''}`],
        ['shape', t.shape ? `${escapeHtml(JSON.stringify(t.shape))} ${escapeHtml(t.dtype)}` : '–'],
        ['produced by', t.producer >= 0 ? escapeHtml(r.model.ops[t.producer].id) : 'graph input'],
        ['used by', t.consumers.map((c) => escapeHtml(r.model.ops[c].id)).join(', ') || '–'],
        ['live at peak', live.has(t.id) ? '<b class="po-red">yes</b>' : 'no'],
      ];
      if (t.alias_of) rows.push(['view of', escapeHtml(t.alias_of)]);
      if (t.donated) rows.push(['donated', 'yes']);
      if (t.output) rows.push(['graph output', 'yes']);
      this.showTip(`<b>tensor ${escapeHtml(t.id)}</b>${table(rows)}`, ev);
    }
  }

  showTip(html, ev) {
    this.tooltip.innerHTML = html;
    this.tooltip.hidden = false;
    if (!ev) return;
    const pad = 14;
    const w = this.tooltip.offsetWidth;
    const hh = this.tooltip.offsetHeight;
    let x = ev.clientX + pad;
    let y = ev.clientY + pad;
    if (x + w > window.innerWidth - 4) x = Math.max(4, ev.clientX - w - pad);
    if (y + hh > window.innerHeight - 4) y = Math.max(4, ev.clientY - hh - pad);
    this.tooltip.style.left = `${x}px`;
    this.tooltip.style.top = `${y}px`;
  }

  hideTip() {
    this.tooltip.hidden = true;
  }

  download() {
    const r = this.last;
    if (!r) return;
    // A file: the CLI's plan JSON (docs/design.md §3, snake_case), which the CLI, Python and this
    // view's `plan` option read back.
    const blob = new Blob([`${JSON.stringify(toCli(r.plan), null, 2)}\n`], { type: 'application/json' });
    const a = h('a', { href: URL.createObjectURL(blob), download: 'plan.json' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }
}

function table(rows) {
  return `<table>${rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('')}</table>`;
}

export default { render };
