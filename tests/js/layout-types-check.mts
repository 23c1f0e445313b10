// The layout() API as a TypeScript user writes it, type-checked (not run) by `tsc -p tests/js`.
import { layout, type Layout, type IntervalLayout, type LayoutOptions, type LayoutBuffer } from 'peakorder';

const graph = {
  tensors: [{ id: 'x', bytes: 64 }, { id: 'y', bytes: 64 }],
  ops: [{ id: 'f', inputs: ['x'], outputs: ['y'], workspace: 16 }],
  outputs: ['y'],
};
const options: LayoutOptions = { method: 'exact', align: 64, budgetMs: 100, slack: 0.05 };
const l = layout(graph, options) as Layout;
const arena: number = l.arenaBytes;
const proven: boolean = l.optimal;
const first: LayoutBuffer = l.buffers[0];
const rect: [number, number, number, number] = [first.firstStep, first.lastStep, first.offset, first.bytes];
const kind: 'tensor' | 'workspace' = first.kind;
const ws: number | undefined = l.workspaceOffsets['f'];
const changed: boolean | undefined = l.orderSearch?.changed;
const given = layout(graph, { order: ['f'] }) as Layout;
const csv = layout('id,lower,upper,size\na,0,2,4\n', { capacity: 8 }) as IntervalLayout;
const fits: boolean = csv.withinCapacity;
const searched: number | undefined = l.orderSearch?.plannedArenaBytes;
const capacity: number | null = csv.capacityBytes;
const nodes: number = l.searchNodes + csv.searchNodes + l.elapsedMs;
// The snake_case names: @deprecated aliases for one release (docs/wasm.md "Names").
const oldArena: number = l.arena_bytes + first.first_step;
// @ts-expect-error: align is a number
layout(graph, { align: '64' });
// @ts-expect-error: an unknown option
const bad: LayoutOptions = { colour: 1 };
console.log(arena, proven, rect, kind, ws, changed, given.order, fits, bad, searched, capacity, nodes, oldArena);
