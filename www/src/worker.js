// The Web Worker: plans off the main thread so the page never freezes. See engine.js for the
// message protocol.
import { handle } from './engine.js';

self.onmessage = async (ev) => {
  const [reply, transfer] = await handle(ev.data);
  self.postMessage(reply, transfer);
};
