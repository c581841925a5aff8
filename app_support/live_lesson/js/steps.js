// Learn's construction, step by step, in the page: the five frames (the sample, its split
// into S blocks, each block's KDE, their pointwise median, MoM-KDE and the KDE) drawn from
// the library's numbers for one sample, sent once; a step button redraws the frame and its
// caption (each step's caption computed by the server's rule, sent with the numbers), with
// no server run. Its release (a step chosen) only writes the step into the URL.

import { drawAxes, el, html, linePath } from "./dom.js";
import { niceTicks } from "./format.js";

const PLOT = { left: 58, right: 14, top: 12, bottom: 58, height: 360, labelAt: 50 };

export function buildSteps(root, m) {
  root.replaceChildren();
  const box = html("div", { class: "live", "data-testid": "live-lesson", "data-frame": "0", "data-kind": "steps" }, root);
  const buttons = html("div", { class: "steps", role: "radiogroup", "aria-label": "Step" }, box);
  const byStep = {};
  for (const [key, label] of m.steps) {
    byStep[key] = html("button", { type: "button", role: "radio", "data-step": key, class: "step" }, buttons, label);
  }
  const legend = html("div", { class: "legend" }, box);
  const plot = el("svg", { class: "plot", role: "img", "aria-label": "MoM-KDE's construction" }, box);
  const grid = el("g", {}, plot);
  const layer = el("g", {}, plot);
  const words = html("p", { class: "readout", "data-role": "readout" }, box);
  return { box, buttons: byStep, legend, plot, grid, layer, words };
}

function curve(layer, xs, ys, sx, sy, color, cls) {
  el("path", { d: linePath(xs, ys, sx, sy), stroke: color, class: `line ${cls}` }, layer);
}

export function drawSteps(dom, m, width) {
  const step = m.step;
  for (const [key, button] of Object.entries(dom.buttons)) button.setAttribute("aria-checked", String(key === step));
  const base = PLOT.height - PLOT.bottom;
  dom.plot.setAttribute("viewBox", `0 0 ${width} ${PLOT.height}`);
  dom.plot.setAttribute("width", width);
  dom.plot.setAttribute("height", PLOT.height);
  const xs = m.xs;
  const [lo, hi] = [xs[0], xs[xs.length - 1]];
  const sx = (x) => PLOT.left + ((x - lo) / (hi - lo)) * (width - PLOT.left - PLOT.right);
  const box = { ...PLOT, bottom: base, width };
  const layer = dom.layer;
  layer.replaceChildren();
  const S = m.blocks.length;
  let legend = [];
  if (step === "split") {
    const sy = (b) => PLOT.top + ((b + 0.5) / S) * (base - PLOT.top);
    drawAxes(dom.grid, box, sx, (b) => sy(b - 1), [], niceTicks(lo, hi, 8), "block", "x", false);
    for (let i = 0; i < m.X.length; i++) {
      const b = m.blockOf[i];
      el("circle", { cx: sx(m.X[i]), cy: sy(b), r: 4, fill: m.palette[b % m.palette.length], stroke: m.isOutlier[i] ? m.colors.outlier : "none", "stroke-width": 2.5 }, layer);
    }
    legend = [["ringed red: an outlier", m.colors.outlier, "rug"]];
  } else {
    const shown = {
      sample: [["true density", m.truth, m.colors.truth, "truth"]],
      compare: [
        ["true density", m.truth, m.colors.truth, "truth"],
        ["KDE", m.kde, m.colors.kde, "kde"],
        ["MoM-KDE", m.momKde, m.colors.mom_kde, "mom"],
      ],
      blocks: m.blocks.map((b, i) => [`block ${i + 1}`, b, m.palette[i % m.palette.length], "block-step"]),
      median: [
        ...m.blocks.map((b, i) => [null, b, m.palette[i % m.palette.length], "block-faint"]),
        [`median of the ${S} blocks`, m.median, m.colors.mom_kde, "mom"],
      ],
    }[step];
    let peak = 0;
    for (const [, ys] of shown) for (const v of ys) if (v > peak) peak = v;
    const top = 1.08 * (peak || 1);
    const sy = (v) => PLOT.top + (1 - Math.min(v, top) / top) * (base - PLOT.top);
    drawAxes(dom.grid, box, sx, sy, niceTicks(0, top, 5), niceTicks(lo, hi, 8), "density", "x", false);
    for (const [, ys, color, cls] of shown) curve(layer, xs, ys, sx, sy, color, cls);
    if (step === "sample" || step === "compare") {
      let ticks = "";
      let red = "";
      for (let i = 0; i < m.X.length; i++) {
        const t = `M${sx(m.X[i]).toFixed(1)},${base + 2}V${base + 12}`;
        if (m.isOutlier[i]) red += t;
        else ticks += t;
      }
      el("path", { d: ticks, class: "rug", stroke: m.colors.truth }, layer);
      el("path", { d: red, class: "rug", stroke: m.colors.outlier }, layer);
      shown.push(["outliers", null, m.colors.outlier, "rug"]);
    }
    legend = shown.filter(([name]) => name).map(([name, , color, cls]) => [name, color, cls === "rug" ? "rug" : "line"]);
  }
  dom.legend.replaceChildren();
  for (const [name, color, kind] of legend) {
    const item = html("span", { class: "item" }, dom.legend);
    html("span", { class: `swatch ${kind}`, style: `background:${color}` }, item);
    html("span", {}, item, name);
  }
  dom.words.textContent = m.captions[step];
}
