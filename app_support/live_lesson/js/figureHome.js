// Home's figure: the whole density and a zoom on the tails, each the truth (dashed), the KDE
// and MoM-KDE over the rug of the sample (the outliers red), in two SVG panels side by side.

import { drawAxes, el, html, linePath, setPath } from "./dom.js";
import { niceTicks } from "./format.js";

const PANEL = { left: 50, right: 10, top: 10, bottom: 50, height: 320, labelAt: 44, gap: 16 };

export function buildHome(parent) {
  const row = html("div", { class: "home-panels" }, parent);
  const panels = [];
  for (const title of ["The whole density", "Zoom on the tails (×10): the outliers' bumps"]) {
    const wrap = html("div", { class: "home-panel" }, row);
    html("div", { class: "map-title" }, wrap, title);
    const svg = el("svg", { class: "plot", role: "img", "aria-label": title }, wrap);
    const layers = {};
    for (const name of ["grid", "truth", "kde", "mom", "rug"]) layers[name] = el("g", { class: name }, svg);
    panels.push({ wrap, svg, layers });
  }
  return { panels };
}

export function drawHome(fig, m, r, width) {
  const w = Math.max(260, Math.floor((width - PANEL.gap) / 2));
  const base = PANEL.height - PANEL.bottom;
  const [lo, hi] = m.axis;
  let peak = 0;
  for (const arr of [r.kde, r.mom, m.truth]) for (const v of arr) if (v > peak) peak = v;
  for (const [i, p] of fig.panels.entries()) {
    const top = i === 0 ? 1.08 * peak : m.zoom;
    p.wrap.style.width = `${w}px`;
    p.svg.setAttribute("viewBox", `0 0 ${w} ${PANEL.height}`);
    p.svg.setAttribute("width", w);
    p.svg.setAttribute("height", PANEL.height);
    const sx = (x) => PANEL.left + ((x - lo) / (hi - lo)) * (w - PANEL.left - PANEL.right);
    const sy = (v) => PANEL.top + (1 - Math.min(v, top) / top) * (base - PANEL.top);
    drawAxes(p.layers.grid, { ...PANEL, bottom: base, width: w }, sx, sy, niceTicks(0, top, 4), niceTicks(lo, hi, 6), "density", "x", false);
    setPath(p.layers.truth, linePath(r.nodes, m.truth, sx, sy), { stroke: m.colors.truth, class: "line truth" });
    setPath(p.layers.kde, linePath(r.nodes, r.kde, sx, sy), { stroke: m.colors.kde, class: "line kde" });
    setPath(p.layers.mom, linePath(r.nodes, r.mom, sx, sy), { stroke: m.colors.mom_kde, class: "line mom" });
    let inliers = "";
    let outliers = "";
    for (let i2 = 0; i2 < r.n; i2++) {
      const tick = `M${sx(r.X[i2]).toFixed(1)},${base + 2}V${base + (r.outlier[i2] ? 16 : 10)}`;
      if (r.outlier[i2]) outliers += tick;
      else inliers += tick;
    }
    p.layers.rug.replaceChildren();
    el("path", { d: inliers, class: "rug", stroke: m.colors.truth }, p.layers.rug);
    el("path", { d: outliers, class: "rug", stroke: m.colors.outlier }, p.layers.rug);
  }
}
