// Where the 2-D frames are computed: in a Web Worker when the browser has them (the page's
// main thread only draws), else on the main thread, by the same functions. At most one frame
// is computed at a time: the moves that come meanwhile are merged into the next one.

import { linspace } from "./grid.js";
import { compute2d, sameSample } from "./lesson2d.js";

// The sample's and the mesh's fields the worker keeps between frames.
const STATIC = ["rows", "rowOutlier", "draws", "clusterSd", "seed", "eps", "norm", "reachPerH", "mesh"];
// The fields a move changes.
export const MOVES = ["k", "at", "x0", "h", "S", "autoS"];

function pick(m, fields) {
  return Object.fromEntries(fields.map((f) => [f, m[f]]));
}

export class Engine {
  constructor(workerSource, onFrame) {
    this.onFrame = onFrame;
    this.busy = false;
    this.pending = null;
    this.id = 0;
    this.worker = null;
    try {
      const url = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));
      this.worker = new Worker(url);
      URL.revokeObjectURL(url);
      this.worker.onmessage = (e) => this.done(e.data.r, e.data.id);
      this.worker.onerror = (e) => {
        e.preventDefault();
        this.fallBack();
      };
    } catch {
      this.worker = null; // (no Web Workers here: the main thread computes)
    }
    this.cache = {};
  }

  get inWorker() {
    return this.worker !== null;
  }

  fallBack() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.busy = false;
    const { moves, started } = this;
    if (this.model) this.load(this.model);
    // (the frame the worker did not answer is asked again, on the main thread)
    if (moves && !this.pending) this.pending = { moves, started };
    this.next();
  }

  load(m) {
    if (!sameSample(this.model, m)) this.cache = {};
    this.model = m;
    this.pending = null;
    this.id += 1; // (a frame in flight was computed for the model before: not drawn)
    Object.assign(this.cache, { xs: linspace(...m.mesh.x), ys: linspace(...m.mesh.y) });
    if (this.worker) this.worker.postMessage({ type: "load", model: pick(m, STATIC) });
  }

  // Ask for the frame of model m (``started``: the event's time, for the latency).
  request(m, started) {
    this.pending = { moves: pick(m, MOVES), started };
    if (!this.busy) this.next();
  }

  next() {
    const job = this.pending;
    this.pending = null;
    if (!job) return;
    this.busy = true;
    this.id += 1;
    this.started = job.started;
    this.moves = job.moves;
    if (this.worker) {
      this.worker.postMessage({ type: "frame", id: this.id, moves: job.moves });
      return;
    }
    // the main thread: the next macrotask, so the event that asked returns first
    setTimeout(() => {
      const t = performance.now();
      const r = compute2d({ ...this.model, ...job.moves }, this.cache);
      r.computeMs = performance.now() - t;
      this.done(r, this.id);
    }, 0);
  }

  done(r, id) {
    this.busy = false;
    if (id === this.id) this.onFrame(r, this.started, this.moves);
    this.next();
  }
}
