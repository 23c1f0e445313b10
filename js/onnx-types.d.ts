// Types of the ONNX functions (docs/wasm.md "ONNX"), shared by every entry point's types.
import type { Graph } from '../pkg/node/peakorder.js';

/** The model's bytes: a Uint8Array (a Node Buffer is one) or an ArrayBuffer. */
export type OnnxBytes = Uint8Array | ArrayBuffer;

export interface ImportOnnxOptions {
  /** Values for symbolic dimensions, as the CLI's `--assume-dim NAME=VALUE`. */
  assumeDims?: Record<string, number>;
  /** The file's name, written as `meta.model` (the CLI writes the file's name there). */
  name?: string;
  /** `"object"` (default): the graph as an object; `"text"`: the JSON text, byte for byte the CLI's. */
  format?: 'object' | 'text';
}

/** Codes of ONNX import and reorder errors (docs/import.md), besides `invalid_argument`. */
export type OnnxErrorCode =
  | 'bad_onnx' | 'no_graph' | 'empty_graph' | 'unknown_domain' | 'unnamed_initializer'
  | 'produced_twice' | 'initializer_produced' | 'unknown_input' | 'unknown_output'
  | 'not_a_tensor' | 'bad_elem_type' | 'negative_dim' | 'size_overflow' | 'invalid_node'
  | 'shape_mismatch' | 'no_shape' | 'symbolic_dim' | 'external_data' | 'invalid_graph'
  | 'unknown_op' | 'repeated_op' | 'missing_op' | 'not_topological' | 'invalid_argument';

/** An ONNX model as a graph (docs/design.md §2), the same graph as `peakorder import onnx`. */
export declare function importOnnx(bytes: OnnxBytes, options: ImportOnnxOptions & { format: 'text' }): string;
export declare function importOnnx(bytes: OnnxBytes, options?: ImportOnnxOptions): Graph;
/** The model with graph.node in `order` (op ids, or a plan); every other byte as it was. */
export declare function reorderOnnx(bytes: OnnxBytes, order: string[] | { order: string[] } | string): Uint8Array;
