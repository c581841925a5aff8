// Home's live figure: the |O| slider, the two panels of Example 1 and their caption, the
// panels recomputed at every move of the slider and the caption the server's for that |O|
// (sent for every |O|: one rule, the server's); on release the page's run writes |O| into
// the URL.

import { html } from "./dom.js";
import { computeExample } from "./example.js";
import { buildHome, drawHome } from "./figureHome.js";
import { drawLegend } from "./figure1d.js";
import { linspace } from "./grid.js";

export function buildExample(root) {
  root.replaceChildren();
  const box = html("div", { class: "live", "data-testid": "live-lesson", "data-frame": "0", "data-kind": "example" }, root);
  const controls = html("div", { class: "controls" }, box);
  const wrap = html("label", { class: "control" }, controls);
  const name = html("span", { class: "name wide" }, wrap, "");
  const input = html("input", { type: "range", "data-role": "outliers-slider", min: "0", step: "1" }, wrap);
  const out = html("output", {}, wrap);
  const status = html("p", { class: "status", "data-role": "status" }, box);
  const legend = html("div", { class: "legend" }, box);
  const fig = buildHome(box);
  const words = html("p", { class: "readout", "data-role": "readout" }, box);
  return { box, slider: { input, out, name }, status, legend, fig, words };
}

export function exampleFrame(m, cache) {
  if (!cache.nodes || cache.key !== m.axis.join("|")) {
    cache.nodes = linspace(...m.axis);
    cache.key = m.axis.join("|");
  }
  return { ...computeExample(m, cache.nodes), nodes: cache.nodes };
}

export function drawExample(dom, m, r, width) {
  dom.slider.name.textContent = m.sliderLabel;
  Object.assign(dom.slider.input, { max: m.maxOutliers });
  dom.slider.input.value = m.outliers;
  dom.slider.out.textContent = `${m.outliers}`;
  drawLegend(dom.legend, [
    ["MoM-KDE", m.colors.mom_kde, "line"],
    ["KDE", m.colors.kde, "line"],
    ["true density", m.colors.truth, "line"],
    ["outliers", m.colors.outlier, "rug"],
  ]);
  drawHome(dom.fig, m, r, width);
  dom.words.textContent = m.captions[m.outliers];
}
