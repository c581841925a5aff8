// Explore's live lesson, the component's entry: the figure (1-D curves or 2-D maps), the
// strip of MoM-KDE's S block KDEs at x0 and the words, recomputed and redrawn in the page
// at every move of the hand, with no server run until it lets go (the release: a trigger the
// server writes into the page's controls). What the page computes follows the library's rule
// (app_support/live_lesson/payload.py says which); its numbers are exposed as
// window.__liveLesson, which tests/app/test_live_lesson.py compares with the library.
//
// Contract (the page's own checks): the root has data-testid="live-lesson", data-dim and
// data-frame, one more at every redraw; the handles have data-role="cluster-handle" and
// "x0-handle"; while the server's run of a release has not arrived the root has the class
// "pending" and the page's words and metrics are marked as updating.
// WORKER_SOURCE: the worker's script, declared by the bundle (bundle.py).

import { buildControls, drawControls, hAt, sOptions } from "./controls.js";
import { html } from "./dom.js";
import { Engine } from "./engine.js";
import { buildFigure1d, drawFigure1d, drawLegend, legendItems } from "./figure1d.js";
import { buildFigure2d, drawFigure2d } from "./figure2d.js";
import { linspace } from "./grid.js";
import { bindHandle, bindWindow } from "./handles.js";
import { buildExample, drawExample, exampleFrame } from "./home.js";
import { buildSteps, drawSteps } from "./steps.js";
import { compute1d } from "./lesson1d.js";
import { others, readout } from "./readout.js";
import { buildStrip, drawStrip } from "./strip.js";

const MAX_LATENCIES = 2000;
// The page's words and metrics while the server's run of a release is on its way.
const PENDING_CLASS = "momkde-live-pending";
const PENDING_STYLE = `
body.${PENDING_CLASS} [data-testid="stMain"] [data-testid="stCaptionContainer"],
body.${PENDING_CLASS} [data-testid="stMain"] [data-testid="stAlert"],
body.${PENDING_CLASS} [data-testid="stMain"] [data-testid="stTable"],
body.${PENDING_CLASS} [data-testid="stMain"] [data-testid="stExpander"] {
  opacity: 0.35;
  transition: opacity 0.1s;
}`;

function build(root, dim) {
  root.replaceChildren();
  const box = html("div", { class: "live", "data-testid": "live-lesson", "data-frame": "0", "data-dim": String(dim) }, root);
  const sliders = buildControls(box);
  const status = html("p", { class: "status", "data-role": "status" }, box);
  const legend = html("div", { class: "legend" }, box);
  const fig = dim === 1 ? buildFigure1d(box) : buildFigure2d(box);
  html("div", { class: "strip-title" }, box, "MoM-KDE's S blocks at x₀: each dot is one block's KDE there");
  const strip = buildStrip(box);
  const words = html("p", { class: "readout", "data-role": "readout" }, box);
  return { box, sliders, status, legend, fig, strip, words };
}

// (the lesson only: Home's and Learn's words come with their numbers, for every value)
function markPending(state, pending) {
  if (state.kind !== "lesson") return;
  state.pending = pending;
  state.dom.box.classList.toggle("pending", pending);
  document.body.classList.toggle(PENDING_CLASS, pending);
  state.dom.status.textContent = pending
    ? `Updating: ${others(state.m)}the metrics and the captions below are those of the last release until the server's run arrives.`
    : "";
}

function width(state) {
  return Math.max(420, state.dom.box.clientWidth || 700);
}

function draw(state) {
  const { m, r, dom } = state;
  const w = width(state);
  state.drawnWidth = w;
  if (state.kind === "example") {
    drawExample(dom, m, r, w);
    return;
  }
  if (state.kind === "steps") {
    drawSteps(dom, m, w);
    return;
  }
  if (state.dim === 1) {
    state.scales = drawFigure1d(dom.fig, m, r, w);
    drawLegend(dom.legend, legendItems(m));
  } else {
    state.scales = drawFigure2d(dom.fig, m, r, w, state.pending);
    drawLegend(dom.legend, [
      ["inliers", "#c8cdd8", "rug"],
      ["outliers", m.colors.outlier, "rug"],
    ]);
  }
  drawStrip(dom.strip, r, m.colors, w);
  drawControls(dom.sliders, m, r);
  dom.words.textContent = readout(state.drawn || m, r);
}

function publish(state) {
  const { r } = state;
  state.frame += 1;
  const box = state.dom.box;
  box.setAttribute("data-frame", String(state.frame));
  if (state.kind === "steps") {
    window.__liveLesson = { kind: state.kind, frame: state.frame, latencies: state.latencies, step: state.m.step, readout: state.dom.words.textContent };
    return;
  }
  box.setAttribute("data-n", String(r.n));
  box.setAttribute("data-s", String(r.S));
  const drawn = state.drawn || state.m;
  window.__liveLesson = {
    kind: state.kind,
    dim: state.dim,
    frame: state.frame,
    latencies: state.latencies,
    inWorker: state.engine ? state.engine.inWorker : false,
    computeMs: r.computeMs,
    model: { k: drawn.k, at: drawn.at, x0: drawn.x0, h: drawn.h, S: r.S, seed: state.m.seed, outliers: drawn.outliers },
    // whether this frame shows the hand's last move (2-D: later moves may still be computed)
    current: () => ["k", "at", "x0", "h", "S"].every((f) => JSON.stringify(drawn[f] ?? null) === JSON.stringify(state.m[f] ?? null)),
    n: r.n,
    S: r.S,
    nodes: r.nodes ? Array.from(r.nodes) : null,
    mesh: state.dim === 2 ? state.m.mesh : null,
    mom: Array.from(r.mom),
    kde: Array.from(r.kde),
    integral: r.integral,
    normalisedAsLibrary: r.asLibrary,
    readout: state.dom.words.textContent,
    blocks: r.sums ? (s) => Array.from(r.nodes, (_, j) => r.sums[s * r.nodes.length + j] * r.scale[s]) : null,
    strip: r.strip && {
      values: Array.from(r.strip.values),
      near: Array.from(r.strip.near),
      holds: Array.from(r.strip.holds),
      median: r.strip.median,
      mean: r.strip.mean,
    },
  };
}

function shown(state, r, started, moves) {
  state.r = r;
  state.drawn = moves ? { ...state.m, ...moves } : null;
  draw(state);
  publish(state);
  if (started !== undefined) {
    state.latencies.push(performance.now() - started);
    if (state.latencies.length > MAX_LATENCIES) state.latencies.shift();
  }
}

function redraw(state, started) {
  if (state.kind === "steps") {
    shown(state, {}, started);
    return;
  }
  if (state.kind === "example") {
    shown(state, exampleFrame(state.m, state.cache), started);
    return;
  }
  if (state.dim === 1) {
    shown(state, compute1d(state.m, state.cache), started);
    return;
  }
  state.engine.request(state.m, started);
}

function move(state, started) {
  if (!state.pending) markPending(state, true);
  else if (state.kind === "lesson") document.body.classList.add(PENDING_CLASS); // (after a remount)
  redraw(state, started);
}

function release(state) {
  const m = state.m;
  state.dragging = null;
  state.dom.box.classList.remove("dragging");
  state.releases += 1;
  if (state.kind === "example") {
    state.setTrigger("release", { outliers: m.outliers, seq: state.releases });
    return;
  }
  if (state.kind === "steps") {
    state.setTrigger("release", { step: m.step, seq: state.releases });
    return;
  }
  state.setTrigger("release", {
    k: m.k,
    at: m.at,
    x0: m.x0,
    h: m.hManual || m.keepH ? m.h : null,
    S: m.autoS ? null : m.S,
    seq: state.releases,
  });
}

function bindSliders(state) {
  const { k, h, s } = state.dom.sliders;
  const slide = (apply) => (e) => {
    state.dragging = "slider";
    state.dom.box.classList.add("dragging");
    apply(Number(e.target.value));
    move(state, e.timeStamp);
  };
  k.input.addEventListener("input", slide((v) => (state.m.k = v)));
  h.input.addEventListener(
    "input",
    slide((v) => {
      state.m.h = hAt(v, state.m.hRange);
      state.m.hManual = true;
    }),
  );
  s.input.addEventListener(
    "input",
    slide((v) => {
      state.m.S = sOptions(state.m.sOptions, state.r.S)[v];
      state.m.autoS = false;
    }),
  );
  for (const { input } of [k, h, s]) input.addEventListener("change", () => release(state));
  state.dom.sliders.keep.input.addEventListener("change", (e) => {
    state.m.keepH = e.target.checked;
  });
}

function bindAll(state) {
  const fig = state.dom.fig;
  if (state.kind === "steps") {
    for (const [key, button] of Object.entries(state.dom.buttons)) {
      button.addEventListener("click", (e) => {
        state.m.step = key;
        redraw(state, e.timeStamp);
        release(state);
      });
    }
  } else if (state.kind === "example") {
    const { input } = state.dom.slider;
    input.addEventListener("input", (e) => {
      state.dragging = "slider";
      state.m.outliers = Number(e.target.value);
      move(state, e.timeStamp);
    });
    input.addEventListener("change", () => release(state));
  } else if (state.dim === 1) {
    bindHandle(state, fig.clusterHandle, "at", fig.plot, move, release);
    bindHandle(state, fig.x0Handle, "x0", fig.plot, move, release);
  }
  if (state.kind === "lesson") {
    bindSliders(state);
    bindWindow(() => STATE, move, release);
  }
  // a new width (the sidebar collapsed, the window resized) redraws at once
  state.resize = new ResizeObserver(() => {
    if (state.r && width(state) !== state.drawnWidth) draw(state);
  });
  state.resize.observe(state.dom.box);
}

// 2-D: the handles of a map are made when its panel is first drawn; bind them once.
function bindMaps(state) {
  for (const p of state.dom.fig.panels.values()) {
    if (p.bound) continue;
    p.bound = true;
    bindHandle(state, p.cluster, "at", p.svg, move, release);
    bindHandle(state, p.x0, "x0", p.svg, move, release);
  }
}

function load(state, data) {
  state.m = { ...data, hManual: false, keepH: state.m ? state.m.keepH : data.keepH };
  state.dom.box.classList.toggle("present", Boolean(data.present));
  if (state.kind === "lesson" && state.dim === 1) {
    state.cache.axis = linspace(data.axis[0], data.axis[1], data.axis[2]);
    state.cache.view = null;
    state.cache.norm = null;
  } else if (state.kind === "lesson") {
    state.engine.load(state.m);
  }
  markPending(state, false);
  redraw(state);
}

// The page's one live figure: its state outlives a new mount of the host element (the same
// drawing is moved into the new host, a drag goes on).
let STATE = null;
let STYLED = false;

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (!data) return;
  if (!STYLED) {
    STYLED = true;
    const style = document.createElement("style");
    style.textContent = PENDING_STYLE;
    document.head.appendChild(style);
  }
  const kind = data.kind || "lesson";
  if (!STATE || STATE.dim !== data.dim || STATE.kind !== kind) {
    if (STATE) {
      // (the figure of another page or dimension: its worker, its observer, its marks go)
      if (STATE.engine && STATE.engine.worker) STATE.engine.worker.terminate();
      STATE.resize.disconnect();
      document.body.classList.remove(PENDING_CLASS);
    }
    const root = document.createElement("div");
    const dom = { example: buildExample, steps: (r) => buildSteps(r, data) }[kind]?.(root) || build(root, data.dim);
    STATE = { root, dom, kind, dim: data.dim, cache: {}, frame: 0, latencies: [], releases: 0, dragging: null, pending: false };
    if (data.dim === 2) {
      const state = STATE;
      state.engine = new Engine(WORKER_SOURCE, (r, started, moves) => {
        shown(state, r, started, moves);
        bindMaps(state);
      });
    }
    bindAll(STATE);
  }
  if (STATE.root.parentNode !== parentElement) parentElement.appendChild(STATE.root);
  STATE.setTrigger = setTriggerValue;
  // (data of a run from before the last release are stale: the release's run follows; a
  // new session's, numbered 0 again, are taken and the count starts again)
  if (!STATE.dragging && !STATE.keyHeld && (data.seq >= STATE.releases || data.seq === 0)) {
    if (data.seq < STATE.releases) STATE.releases = 0;
    load(STATE, data);
  }
  // unmounted (the page left), the page's words are not left marked as updating
  return () => document.body.classList.remove(PENDING_CLASS);
}
