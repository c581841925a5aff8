// The 2-D figure: one map per method on the plane (log10 of the density on the shared colour
// scale the server's maps use, from ``colour.top`` down ``colour.decades`` decades, values
// above the top in the top colour), the sample on the first map, and the two handles on
// every map: the cluster's place (a red triangle) and x0 (a cross in a ring).

import { el, html } from "./dom.js";
import { fmt, niceTicks } from "./format.js";

export const PANEL = { left: 44, right: 8, top: 22, bottom: 34, cols: 3, gap: 10, bar: 56 };

// The colour of each value: log10, scaled to the LUT's 0..255 between bottom and top; a zero
// or negative density (below the scale) takes the lowest colour.
export function colourIndex(v, top, bottom) {
  if (!(v > 0)) return 0;
  const t = (Math.log10(v) - bottom) / (top - bottom);
  return Math.max(0, Math.min(255, Math.round(t * 255)));
}

export function buildFigure2d(parent) {
  const grid = html("div", { class: "maps" }, parent);
  const bar = html("div", { class: "colour-bar" }, parent);
  return { grid, bar, panels: new Map() };
}

function panel(fig, key, title) {
  let p = fig.panels.get(key);
  if (p) return p;
  const wrap = html("div", { class: "map", "data-map": key }, fig.grid);
  const heading = html("div", { class: "map-title" }, wrap, title);
  const holder = html("div", { class: "map-body" }, wrap);
  const canvas = html("canvas", { class: "map-canvas" }, holder);
  const svg = el("svg", { class: "map-overlay" }, holder);
  const axes = el("g", {}, svg);
  const marks = el("g", {}, svg);
  const cluster = el("path", { class: "handle cluster-handle", tabindex: "0" }, svg);
  const x0 = el("g", { class: "handle x0-handle", tabindex: "0" }, svg);
  el("circle", { r: "7", class: "x0-ring" }, x0);
  el("path", { d: "M-5,0H5M0,-5V5", class: "x0-cross" }, x0);
  p = { wrap, heading, canvas, svg, axes, marks, cluster, x0, image: null };
  fig.panels.set(key, p);
  return p;
}

// A map's pixels: values (ij order on xs x ys) coloured by the LUT, the rows of the image
// from the top (the largest y) down, on the panel's off-screen canvas.
function paint(p, values, Gx, Gy, lut, colour) {
  // (the panel's own off-screen canvas and pixels, made once per size: a frame repaints them)
  if (!p.offscreen || p.offscreen.width !== Gx || p.offscreen.height !== Gy) {
    p.offscreen = document.createElement("canvas");
    p.offscreen.width = Gx;
    p.offscreen.height = Gy;
    p.pixels = p.offscreen.getContext("2d").createImageData(Gx, Gy);
  }
  const off = p.offscreen;
  const ctx = off.getContext("2d");
  const image = p.pixels;
  const top = colour.top;
  const bottom = top - colour.decades;
  for (let a = 0; a < Gx; a++) {
    for (let b = 0; b < Gy; b++) {
      const c = colourIndex(values[a * Gy + b], top, bottom) * 3;
      const at = ((Gy - 1 - b) * Gx + a) * 4;
      image.data[at] = lut[c];
      image.data[at + 1] = lut[c + 1];
      image.data[at + 2] = lut[c + 2];
      image.data[at + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
  return off;
}

// Draws every map of the frame; returns the planes' scales (to map a pointer back).
export function drawFigure2d(fig, m, r, width, dragging) {
  const maps = [
    { key: "truth", title: "True density", values: m.truth, mesh: m.mesh, live: true },
    { key: "kde", title: "KDE", values: r.kde, mesh: m.mesh, live: true },
    { key: "mom_kde", title: "MoM-KDE", values: r.mom, mesh: m.mesh, live: true },
    ...m.curves.map((c) => ({ key: c.method, title: `${c.label} · as of the last release`, values: c.z, mesh: c.mesh, live: false })),
  ];
  const cols = Math.min(PANEL.cols, maps.length);
  const outer = Math.floor((width - PANEL.bar - (cols - 1) * PANEL.gap) / cols);
  const side = Math.max(120, outer - PANEL.left - PANEL.right);
  const [xlo, xhi] = m.mesh.x;
  const [ylo, yhi] = m.mesh.y;
  const sx = (x) => PANEL.left + ((x - xlo) / (xhi - xlo)) * side;
  const sy = (y) => PANEL.top + (1 - (y - ylo) / (yhi - ylo)) * side;
  const xTicks = niceTicks(xlo, xhi, 5);
  const yTicks = niceTicks(ylo, yhi, 5);
  for (const [i, map] of maps.entries()) {
    const p = panel(fig, map.key, map.title);
    p.heading.textContent = map.title;
    p.wrap.classList.toggle("stale", !map.live && dragging);
    const w = PANEL.left + side + PANEL.right;
    const h = PANEL.top + side + PANEL.bottom;
    p.wrap.style.width = `${w}px`;
    for (const node of [p.canvas, p.svg]) {
      node.setAttribute("width", w);
      node.setAttribute("height", h);
    }
    p.canvas.width = w;
    p.canvas.height = h;
    const ctx = p.canvas.getContext("2d");
    ctx.clearRect(0, 0, w, h);
    ctx.imageSmoothingEnabled = false;
    const [mx0, mx1, Gx] = map.mesh.x;
    const [my0, my1, Gy] = map.mesh.y;
    // (a map that does not move with the hand is painted once per colour scale)
    const key = map.live && map.key !== "truth" ? null : `${m.colour.top}|${map.values.length}`;
    if (!key || p.imageKey !== key || p.imageValues !== map.values) {
      p.image = paint(p, map.values, Gx, Gy, m.lut, m.colour);
      p.imageKey = key;
      p.imageValues = map.values;
    }
    const image = p.image;
    // a node is the centre of its cell: the image spans half a cell beyond the end nodes
    const hx = (mx1 - mx0) / (Gx - 1) / 2;
    const hy = (my1 - my0) / (Gy - 1) / 2;
    ctx.save();
    ctx.beginPath();
    ctx.rect(PANEL.left, PANEL.top, side, side);
    ctx.clip();
    ctx.drawImage(image, sx(mx0 - hx), sy(my1 + hy), sx(mx1 + hx) - sx(mx0 - hx), sy(my0 - hy) - sy(my1 + hy));
    if (i === 0) drawSample(ctx, r, m, sx, sy);
    ctx.restore();
    drawPlaneAxes(p.axes, sx, sy, xTicks, yTicks, side, i % cols === 0);
    placeHandles(p, m, sx, sy, i === 0);
  }
  for (const key of [...fig.panels.keys()]) {
    if (!maps.some((map) => map.key === key)) {
      fig.panels.get(key).wrap.remove();
      fig.panels.delete(key);
    }
  }
  drawBar(fig.bar, m);
  return { x: { lo: xlo, hi: xhi, left: PANEL.left, right: PANEL.left + side }, y: { lo: ylo, hi: yhi, top: PANEL.top, bottom: PANEL.top + side } };
}

function drawSample(ctx, r, m, sx, sy) {
  ctx.fillStyle = "rgba(225,230,240,0.55)";
  for (let i = 0; i < r.n; i++) {
    if (r.outlier[i]) continue;
    ctx.fillRect(sx(r.X[2 * i]) - 1, sy(r.X[2 * i + 1]) - 1, 2, 2);
  }
  ctx.strokeStyle = "rgba(255,70,70,0.9)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let i = 0; i < r.n; i++) {
    if (!r.outlier[i]) continue;
    const x = sx(r.X[2 * i]);
    const y = sy(r.X[2 * i + 1]);
    ctx.moveTo(x + 2.5, y);
    ctx.arc(x, y, 2.5, 0, 2 * Math.PI);
  }
  ctx.stroke();
}

function drawPlaneAxes(layer, sx, sy, xTicks, yTicks, side, yLabels) {
  layer.replaceChildren();
  const yBase = PANEL.top + side;
  for (const t of xTicks) {
    el("line", { x1: sx(t), x2: sx(t), y1: yBase, y2: yBase + 4, class: "tick" }, layer);
    el("text", { x: sx(t), y: yBase + 15, class: "tick-label", "text-anchor": "middle" }, layer).textContent = fmt(t);
  }
  for (const t of yTicks) {
    el("line", { x1: PANEL.left - 4, x2: PANEL.left, y1: sy(t), y2: sy(t), class: "tick" }, layer);
    if (yLabels) el("text", { x: PANEL.left - 6, y: sy(t) + 4, class: "tick-label", "text-anchor": "end" }, layer).textContent = fmt(t);
  }
  el("rect", { x: PANEL.left, y: PANEL.top, width: side, height: side, class: "frame" }, layer);
  el("text", { x: PANEL.left + side / 2, y: yBase + 30, class: "axis-label", "text-anchor": "middle" }, layer).textContent = "x₁";
  if (yLabels) {
    el("text", { class: "axis-label", transform: `translate(11,${PANEL.top + side / 2}) rotate(-90)`, "text-anchor": "middle" }, layer).textContent = "x₂";
  }
}

function placeHandles(p, m, sx, sy, first) {
  const [ax, ay] = m.at;
  // (a triangle pointing up at the place, its tip just under x0's ring when both coincide)
  p.cluster.setAttribute("d", `M${sx(ax)},${sy(ay) + 2}l-8,14h16z`);
  p.cluster.setAttribute("fill", m.k ? m.colors.outlier : "white");
  p.cluster.setAttribute("stroke", m.k ? "white" : m.colors.outlier);
  p.cluster.setAttribute("aria-label", `the ${m.k} outliers placed, at (${ax.toFixed(2)}, ${ay.toFixed(2)})`);
  p.x0.setAttribute("transform", `translate(${sx(m.x0[0])},${sy(m.x0[1])})`);
  p.x0.setAttribute("aria-label", `the locked point x0 = (${m.x0[0].toFixed(2)}, ${m.x0[1].toFixed(2)})`);
  if (first) {
    p.cluster.setAttribute("data-role", "cluster-handle");
    p.x0.setAttribute("data-role", "x0-handle");
  }
}

// The colour bar, under the maps: the LUT from the bottom decade (left) to the top,
// labelled in densities.
const BAR = { width: 240, height: 10 };

function drawBar(bar, m) {
  const key = `${m.colour.top}|${m.colour.decades}|${m.colour.capped}`;
  if (bar.dataset.key === key) return;
  bar.dataset.key = key;
  bar.replaceChildren();
  html("div", { class: "bar-title" }, bar, m.colour.capped ? "density (capped: above the top, the top colour)" : "density");
  const canvas = html("canvas", { width: String(BAR.width), height: String(BAR.height) }, bar);
  const ctx = canvas.getContext("2d");
  for (let x = 0; x < BAR.width; x++) {
    const c = Math.round((x / (BAR.width - 1)) * 255) * 3;
    ctx.fillStyle = `rgb(${m.lut[c]},${m.lut[c + 1]},${m.lut[c + 2]})`;
    ctx.fillRect(x, 0, 1, BAR.height);
  }
  const labels = html("div", { class: "bar-labels" }, bar);
  const { top, decades } = m.colour;
  for (let d = Math.ceil(top - decades); d <= Math.floor(top); d++) {
    html("span", { style: `left:${((d - (top - decades)) / decades) * BAR.width}px` }, labels, `1e${d}`);
  }
}
