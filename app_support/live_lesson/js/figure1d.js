// The 1-D figure: the curves (truth, KDE, MoM-KDE, the block KDEs, the server's other fits)
// over the rug, the cluster's handle under the rug and x0's knob on top, in one SVG.

import { drawAxes, el, html, linePath, setPath } from "./dom.js";
import { niceTicks } from "./format.js";

const MAX_DRAWN_BLOCK_POINTS = 60000; // block curves' vertices per redraw (thinned beyond)
export const PLOT = { left: 58, right: 14, top: 12, bottom: 58, height: 340, labelAt: 54 };

export function buildFigure1d(parent) {
  const plot = el("svg", { class: "plot", role: "img", "aria-label": "densities" }, parent);
  const layers = {};
  for (const name of ["grid", "blocks", "truth", "curves", "kde", "mom", "rug", "cluster", "x0"]) {
    layers[name] = el("g", { class: name }, plot);
  }
  const clusterHandle = el("path", { "data-role": "cluster-handle", tabindex: "0", class: "handle cluster-handle" }, plot);
  const x0Handle = el("circle", { "data-role": "x0-handle", tabindex: "0", class: "handle x0-handle", r: "8" }, plot);
  return { plot, layers, clusterHandle, x0Handle };
}

// Draws the frame ``r`` of the model ``m`` at ``width`` pixels; returns the x scale's
// ends (to map a pointer back to the data's axis).
export function drawFigure1d(fig, m, r, width) {
  const base = PLOT.height - PLOT.bottom; // the density axis' bottom, in pixels
  fig.plot.setAttribute("viewBox", `0 0 ${width} ${PLOT.height}`);
  fig.plot.setAttribute("width", width);
  fig.plot.setAttribute("height", PLOT.height);
  const [lo, hi] = m.axis;
  const sx = (x) => PLOT.left + ((x - lo) / (hi - lo)) * (width - PLOT.left - PLOT.right);
  let peak = 0;
  for (const arr of [r.kde, r.mom, m.truth]) for (const v of arr) if (v > peak) peak = v;
  let sy;
  let yTicks;
  if (m.logY) {
    const top = Math.log10(1.3 * peak);
    const floor = top - 4;
    sy = (v) => PLOT.top + ((top - Math.log10(Math.max(v, 10 ** floor))) / (top - floor)) * (base - PLOT.top);
    yTicks = [];
    for (let d = Math.ceil(floor); d <= Math.floor(top); d++) yTicks.push(10 ** d);
  } else {
    const top = 1.08 * peak;
    sy = (v) => PLOT.top + (1 - Math.min(v, top) / top) * (base - PLOT.top);
    yTicks = niceTicks(0, top, 5);
  }
  const box = { ...PLOT, bottom: base, width };
  drawAxes(fig.layers.grid, box, sx, sy, yTicks, niceTicks(lo, hi, 8), m.logY ? "density (log)" : "density", "x", m.logY);

  const nodes = r.nodes;
  const G = nodes.length;
  if (m.showBlocks) {
    const stride = Math.max(1, Math.ceil((r.S * G) / MAX_DRAWN_BLOCK_POINTS));
    let d = "";
    const ys = new Float64Array(G);
    for (let s = 0; s < r.S; s++) {
      for (let j = 0; j < G; j++) ys[j] = (r.sums[s * G + j] * r.scale[s]) / r.integral;
      d += linePath(nodes, ys, sx, sy, stride);
    }
    setPath(fig.layers.blocks, d, { stroke: m.colors.block, class: "line blocks" });
  } else {
    fig.layers.blocks.replaceChildren();
  }
  setPath(fig.layers.truth, linePath(nodes, m.truth, sx, sy), { stroke: m.colors.truth, class: "line truth" });
  fig.layers.curves.replaceChildren();
  for (const c of m.curves) {
    el("path", { d: linePath(c.x, c.y, sx, sy), stroke: c.color, class: "line server" }, fig.layers.curves);
  }
  setPath(fig.layers.kde, linePath(nodes, r.kde, sx, sy), { stroke: m.colors.kde, class: "line kde" });
  setPath(fig.layers.mom, linePath(nodes, r.mom, sx, sy), { stroke: m.colors.mom_kde, class: "line mom" });

  // the rug: the sample's rows (its outliers red), the placed rows longer, in red
  let inliers = "";
  let outliers = "";
  for (let i = 0; i < r.n; i++) {
    const x = sx(r.X[i]).toFixed(1);
    const tick = i >= r.n0 ? `M${x},${base + 2}V${base + 20}` : `M${x},${base + 2}V${base + 12}`;
    if (r.outlier[i]) outliers += tick;
    else inliers += tick;
  }
  fig.layers.rug.replaceChildren();
  el("path", { d: inliers, class: "rug", stroke: m.colors.truth }, fig.layers.rug);
  el("path", { d: outliers, class: "rug", stroke: m.colors.outlier }, fig.layers.rug);

  // the cluster's handle (a triangle under the rug) and x0's (a dotted line, a knob on top)
  const cx = sx(m.at);
  fig.clusterHandle.setAttribute("d", `M${cx},${base + 24}l-9,16h18z`);
  fig.clusterHandle.setAttribute("fill", m.k ? m.colors.outlier : "white");
  fig.clusterHandle.setAttribute("stroke", m.colors.outlier);
  fig.clusterHandle.setAttribute("aria-label", `the ${m.k} outliers placed, at ${m.at.toFixed(2)}`);
  const px0 = sx(m.x0);
  setPath(fig.layers.x0, `M${px0},${PLOT.top}V${base}`, { stroke: m.colors.point, class: "x0-line" });
  fig.x0Handle.setAttribute("cx", px0);
  fig.x0Handle.setAttribute("cy", PLOT.top + 8);
  fig.x0Handle.setAttribute("fill", m.colors.point);
  fig.x0Handle.setAttribute("aria-label", `the locked point x0 = ${m.x0.toFixed(2)}`);
  return { x: { lo, hi, left: PLOT.left, right: width - PLOT.right } };
}

export function legendItems(m) {
  return [
    ["MoM-KDE", m.colors.mom_kde, "line"],
    ["KDE", m.colors.kde, "line"],
    ["true density", m.colors.truth, "line"],
    ...(m.showBlocks ? [["the S block KDEs", m.colors.block, "line"]] : []),
    ...m.curves.map((c) => [`${c.label} (as of the last release)`, c.color, "line server"]),
    ["outliers", m.colors.outlier, "rug"],
  ];
}

export function drawLegend(legend, items) {
  const key = items.map((i) => i[0]).join("|");
  if (legend.dataset.key === key) return;
  legend.dataset.key = key;
  legend.replaceChildren();
  for (const [name, color, kind] of items) {
    const item = html("span", { class: "item" }, legend);
    html("span", { class: `swatch ${kind}`, style: `background:${color}` }, item);
    html("span", {}, item, name);
  }
}
