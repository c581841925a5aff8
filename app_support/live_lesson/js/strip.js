// The strip under the figure: MoM-KDE's S block KDEs at x0, one dot each (red when the block
// holds an outlier within reach of x0), the median's line and the mean's (the KDE), and the
// count of each kind of dot. The dots of each of SLICES slices of the range stack above and
// below the middle; the strip grows to hold the highest stack (up to MAX_HEIGHT, beyond which
// the dots of a stack overlap).

import { el } from "./dom.js";
import { fmt, niceTicks } from "./format.js";

const SLICES = 80;
const RADIUS = 4;
const MIN_HEIGHT = 150;
const MAX_HEIGHT = 320;
export const STRIP = { left: 58, right: 14, top: 8, bottom: 36 };

export function buildStrip(parent) {
  const svg = el("svg", { class: "strip", role: "img", "aria-label": "the blocks at x0" }, parent);
  return { svg, grid: el("g", {}, svg), lines: el("g", {}, svg), dots: el("g", {}, svg) };
}

// Each dot's slice and place in its stack (0, 1, 2, ...), and the highest stack.
export function stacks(values, lo, hi) {
  const bins = new Int32Array(SLICES);
  const place = new Int32Array(values.length);
  for (let s = 0; s < values.length; s++) {
    const b = Math.min(SLICES - 1, Math.max(0, Math.floor(((values[s] - lo) / (hi - lo)) * SLICES)));
    place[s] = bins[b]++;
  }
  let highest = 0;
  for (const c of bins) if (c > highest) highest = c;
  return { place, highest };
}

export function drawStrip(strip, r, colors, width) {
  const { values, near, median, mean } = r.strip;
  let top = Math.max(mean, median);
  for (const v of values) if (v > top) top = v;
  top = top || 1;
  const lo = -0.04 * top;
  const hi = 1.06 * top;
  const { place, highest } = stacks(values, lo, hi);
  const pitch = 2.2 * RADIUS;
  const height = Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, STRIP.top + STRIP.bottom + highest * pitch + 2 * RADIUS));
  const base = height - STRIP.bottom;
  strip.svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  strip.svg.setAttribute("width", width);
  strip.svg.setAttribute("height", height);
  const sx = (v) => STRIP.left + ((v - lo) / (hi - lo)) * (width - STRIP.left - STRIP.right);
  const mid = (STRIP.top + base) / 2;
  const spread = (base - STRIP.top) / 2 - RADIUS;
  const step = Math.min(pitch, highest > 1 ? (2 * spread) / (highest - 1) : pitch);
  const g = strip.grid;
  g.replaceChildren();
  for (const t of niceTicks(0, hi, 6)) {
    el("line", { x1: sx(t), x2: sx(t), y1: base, y2: base + 5, class: "tick" }, g);
    el("text", { x: sx(t), y: base + 18, class: "tick-label", "text-anchor": "middle" }, g).textContent = fmt(t);
  }
  el("line", { x1: STRIP.left, x2: width - STRIP.right, y1: base, y2: base, class: "axis" }, g);
  el("text", { x: (STRIP.left + width - STRIP.right) / 2, y: base + 32, class: "axis-label", "text-anchor": "middle" }, g).textContent =
    "each block's KDE at x₀ (density)";
  let red = 0;
  for (const v of near) red += v;
  const count = el("text", { x: width - STRIP.right, y: STRIP.top + 10, class: "strip-count", "text-anchor": "end", "data-role": "strip-count" }, g);
  count.textContent = `${red} red, ${values.length - red} grey of S = ${values.length}`;
  const lines = strip.lines;
  lines.replaceChildren();
  el("path", { d: `M${sx(median)},${STRIP.top}V${base}`, stroke: colors.mom_kde, class: "strip-median" }, lines);
  el("path", { d: `M${sx(mean)},${STRIP.top}V${base}`, stroke: colors.kde, class: "strip-mean" }, lines);
  let grey = "";
  let redDots = "";
  for (let s = 0; s < values.length; s++) {
    const c = place[s];
    const offset = (c % 2 ? -1 : 1) * Math.ceil(c / 2) * step;
    const y = mid + Math.max(-spread, Math.min(spread, offset));
    const x = sx(values[s]);
    const dot = `M${(x - RADIUS).toFixed(1)},${y.toFixed(1)}a${RADIUS},${RADIUS} 0 1,0 ${2 * RADIUS},0a${RADIUS},${RADIUS} 0 1,0 ${-2 * RADIUS},0`;
    if (near[s]) redDots += dot;
    else grey += dot;
  }
  strip.dots.replaceChildren();
  el("path", { d: grey, fill: colors.block, class: "dots" }, strip.dots);
  el("path", { d: redDots, fill: colors.outlier, class: "dots" }, strip.dots);
}
