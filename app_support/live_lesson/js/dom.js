// Building the figure's elements: SVG and HTML nodes, paths, axes.

import { fmt } from "./format.js";

const SVG = "http://www.w3.org/2000/svg";

export function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

export function html(tag, attrs = {}, parent = null, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

export function linePath(xs, ys, sx, sy, stride = 1) {
  let d = "";
  for (let j = 0; j < xs.length; j += stride) {
    d += `${j ? "L" : "M"}${sx(xs[j]).toFixed(1)},${sy(ys[j]).toFixed(1)}`;
  }
  return d;
}

export function setPath(layer, d, attrs) {
  let path = layer.firstChild;
  if (!path) path = el("path", {}, layer);
  path.setAttribute("d", d);
  for (const [k, v] of Object.entries(attrs)) path.setAttribute(k, v);
}

// An x axis with its ticks at the bottom of a plot, gridlines at yTicks, the titles.
export function drawAxes(layer, box, sx, sy, yTicks, xTicks, yLabel, xLabel, log) {
  const { left, right, top, bottom, width, labelAt } = box;
  layer.replaceChildren();
  for (const t of xTicks) {
    const x = sx(t);
    el("line", { x1: x, x2: x, y1: bottom, y2: bottom + 5, class: "tick" }, layer);
    el("text", { x, y: bottom + 18, class: "tick-label", "text-anchor": "middle" }, layer).textContent = fmt(t);
  }
  for (const t of yTicks) {
    const y = sy(t);
    el("line", { x1: left, x2: width - right, y1: y, y2: y, class: "gridline" }, layer);
    el("text", { x: left - 6, y: y + 4, class: "tick-label", "text-anchor": "end" }, layer).textContent = log
      ? `1e${Math.round(Math.log10(t))}`
      : fmt(t);
  }
  el("line", { x1: left, x2: width - right, y1: bottom, y2: bottom, class: "axis" }, layer);
  if (yLabel) {
    const label = el("text", { class: "axis-label", transform: `translate(14,${(top + bottom) / 2}) rotate(-90)`, "text-anchor": "middle" }, layer);
    label.textContent = yLabel;
  }
  el("text", { x: (left + width - right) / 2, y: bottom + labelAt, class: "axis-label", "text-anchor": "middle" }, layer).textContent = xLabel;
}
