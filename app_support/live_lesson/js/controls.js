// The sliders above the figure: k (the outliers placed), h (on a log scale: a pixel is the
// same share of h anywhere) and S (the values the page's S slider offers). Each output has a
// fixed width, so a move never reflows the row under the pointer.

import { html } from "./dom.js";
import { fmt } from "./format.js";

// The h slider's positions: H_STEPS steps between the range's ends, evenly in log h.
export const H_STEPS = 400;

export function hAt(position, [low, high]) {
  const h = low * (high / low) ** (position / H_STEPS);
  return Number(h.toPrecision(3));
}

export function positionOf(h, [low, high]) {
  return Math.round((Math.log(h / low) / Math.log(high / low)) * H_STEPS);
}

// The S slider's values: those the page offers, with the model's S among them.
export function sOptions(offered, S) {
  return offered.includes(S) ? offered : [...offered, S].sort((a, b) => a - b);
}

export function buildControls(parent) {
  const controls = html("div", { class: "controls" }, parent);
  const sliders = {};
  for (const [role, label] of [
    ["k", "k, the outliers placed"],
    ["h", "h"],
    ["s", "S, the blocks"],
  ]) {
    const wrap = html("label", { class: "control" }, controls);
    const name = html("span", { class: "name" }, wrap, label);
    const input = html("input", { type: "range", "data-role": `${role}-slider` }, wrap);
    const out = html("output", { class: `out-${role}` }, wrap);
    sliders[role] = { input, out, name };
  }
  const keep = html("label", { class: "control keep-h" }, controls);
  const box = html("input", { type: "checkbox", "data-role": "keep-h" }, keep);
  const says = html("span", {}, keep);
  sliders.keep = { input: box, says, wrap: keep };
  return sliders;
}

export function drawControls(sliders, m, r) {
  const { k, h, s } = sliders;
  Object.assign(k.input, { min: 0, max: m.kMax, step: 1 });
  k.input.value = m.k;
  k.out.textContent = `${m.k}`;
  Object.assign(h.input, { min: 0, max: H_STEPS, step: 1 });
  h.input.value = positionOf(m.h, m.hRange);
  h.out.textContent = fmt(m.h);
  h.name.textContent = m.hRule && !m.hManual ? `h (${m.hRule})` : "h (by hand)";
  h.input.title = m.hRule && !m.hManual ? `h is the ${m.hRule} rule's; a move sets it by hand` : "h set by hand";
  // keep h: shown while a rule chose h (a release then sets it by hand, so the rule does not
  // run again on the moved sample, where a large cluster can pull it down)
  sliders.keep.wrap.hidden = !(m.hRule && !m.hManual);
  sliders.keep.input.checked = m.keepH;
  sliders.keep.says.textContent = `keep h = ${fmt(m.h)} when I let go (else the ${m.hRule} rule runs again on the moved sample)`;
  const options = sOptions(m.sOptions, r.S);
  Object.assign(s.input, { min: 0, max: options.length - 1, step: 1 });
  s.input.value = options.indexOf(r.S);
  s.out.textContent = `${r.S}`;
  s.name.textContent = m.autoS ? `S, auto: 2⌈εn⌉+1, n = ${r.n}` : "S, by hand";
}
