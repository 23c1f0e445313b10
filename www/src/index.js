// Entry of the view bundle (www/dist/peakorder-view.js): a self-contained ES module (the wasm
// planner, its worker and the styles are inlined) for plain pages, notebooks and reports.
export { mount, render } from './view.js';
export { EXAMPLES, randomGraph } from './examples.js';
export { formatBytes } from './format.js';
import view from './view.js';
export default view;
