// The 2-D lesson's computations off the page's main thread: a "load" message brings the
// sample and the mesh, each "frame" message the moves (k, the place, x0, h, S); the answer
// is the frame's numbers (their buffers transferred, not copied).

import { linspace } from "./grid.js";
import { compute2d, sameSample, sortAhead } from "./lesson2d.js";

let model = null;
const cache = {};
// Nodes sorted ahead per slice of idle time (a few milliseconds), between two frames.
const AHEAD = 1500;
let ahead = null;

function sortSome() {
  ahead = sortAhead(cache, AHEAD) ? setTimeout(sortSome, 0) : null;
}

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "load") {
    // (the same sample and mesh, as after a release: the kept sums still hold)
    if (!sameSample(model, message.model)) {
      cache.view = null;
      cache.norm = null;
    }
    model = message.model;
    cache.xs = linspace(...model.mesh.x);
    cache.ys = linspace(...model.mesh.y);
    return;
  }
  const started = performance.now();
  const r = compute2d({ ...model, ...message.moves }, cache);
  r.computeMs = performance.now() - started;
  self.postMessage({ id: message.id, r }, [r.kde.buffer, r.mom.buffer, r.median.buffer, r.X.buffer, r.outlier.buffer]);
  if (ahead === null) ahead = setTimeout(sortSome, 0);
};
