// The 1-D lesson by the library's rule (app_support/live_lesson/payload.py says which): the
// rows (the sample, then k placed rows at + sd * draws[i]), MoMKDE's split, each block's
// Gaussian KDE on the figure's axis, their pointwise median divided by its Riemann sum on
// log_integral's grid, their mean weighted by the blocks' sizes (the KDE), and the strip:
// each block's KDE at x0.

import { normGrid } from "./grid.js";
import { median } from "./median.js";
import { autoBlocks, split } from "./split.js";
import { SQRT_2PI, addKernels } from "./sums.js";

// The split, kept while n, S and the seed stay.
export function cachedSplit(n, S, seed, cache) {
  const key = `${n}|${S}|${seed}`;
  if (!cache.split || cache.split.key !== key) cache.split = { key, ...split(n, S, seed) };
  return cache.split;
}

// The placed rows after the sample's: the model's rows, their labels (outlier or not).
export function placedRows(m, d) {
  const n0 = m.rows.length / d;
  const n = n0 + m.k;
  const X = new Float64Array(n * d);
  X.set(m.rows);
  const outlier = new Uint8Array(n);
  for (let i = 0; i < n0; i++) outlier[i] = m.rowOutlier[i];
  const at = d === 1 ? [m.at] : m.at;
  for (let i = 0; i < m.k; i++) {
    for (let c = 0; c < d; c++) X[(n0 + i) * d + c] = at[c] + m.clusterSd * m.draws[i * d + c];
    outlier[n0 + i] = 1;
  }
  return { X, outlier, n0, n };
}

// The model's S: 2 ceil(eps n) + 1 when auto, else the slider's (at most n).
export function blocksOf(m, n) {
  return m.autoS ? autoBlocks(n, m.eps) : Math.min(m.S, n);
}

// Each block's kernel sums on ``nodes``: the sample's rows from a cache (they move with
// neither the cluster nor x0), the placed rows added at each call.
function blockSums(nodes, X, n0, labels, S, h, cache, name) {
  const key = `${cache.split.key}|${h}|${nodes[0]}|${nodes[nodes.length - 1]}|${nodes.length}`;
  if (!cache[name] || cache[name].key !== key) {
    const base = new Float64Array(S * nodes.length);
    addKernels(base, nodes, X, labels, 0, n0, h);
    cache[name] = { key, base };
  }
  const sums = cache[name].base.slice();
  addKernels(sums, nodes, X, labels, n0, X.length, h);
  return sums;
}

// The median over the blocks of their KDEs (numpy.median's) at each node, and the KDE.
function medianAndMean(sums, sizes, G, h, n) {
  const S = sizes.length;
  const scale = new Float64Array(S);
  for (let s = 0; s < S; s++) scale[s] = 1 / (sizes[s] * h * SQRT_2PI);
  const middle = new Float64Array(G);
  const mean = new Float64Array(G);
  const column = new Float64Array(S);
  for (let j = 0; j < G; j++) {
    let total = 0;
    let live = 0;
    for (let s = 0; s < S; s++) {
      const raw = sums[s * G + j];
      total += raw;
      column[s] = raw * scale[s];
      if (raw !== 0) live++;
    }
    mean[j] = total / (n * h * SQRT_2PI);
    if (live <= (S - 1) >> 1) continue; // both middle values are 0
    middle[j] = median(column, S);
  }
  return { median: middle, mean, scale };
}

// The strip at x0 (d coordinates): each block's KDE there, the blocks holding an outlier
// within reach of it (near) or anywhere (holds), their median and the KDE.
export function stripAt(X, d, outlier, labels, sizes, x0, h, reach, norm) {
  const n = outlier.length;
  const S = sizes.length;
  const values = new Float64Array(S);
  const near = new Uint8Array(S);
  const holds = new Uint8Array(S);
  for (let i = 0; i < n; i++) {
    let r2 = 0;
    for (let c = 0; c < d; c++) {
      const u = (x0[c] - X[i * d + c]) / h;
      r2 += u * u;
    }
    values[labels[i]] += Math.exp(-0.5 * r2);
    if (outlier[i]) {
      holds[labels[i]] = 1;
      if (Math.sqrt(r2) * h <= reach) near[labels[i]] = 1;
    }
  }
  let weighted = 0;
  for (let s = 0; s < S; s++) {
    weighted += values[s] * norm;
    values[s] *= norm / sizes[s];
  }
  return { values, near, holds, median: median(Float64Array.from(values), S), mean: weighted / n, reach };
}

// Everything one frame draws, for the model's k, place, x0, h and S (cache.axis: the
// figure's nodes).
export function compute1d(m, cache) {
  const { X, outlier, n0, n } = placedRows(m, 1);
  const S = blocksOf(m, n);
  const { sizes, labels } = cachedSplit(n, S, m.seed, cache);
  const h = m.h;
  const nodes = cache.axis;
  const G = nodes.length;
  const sums = blockSums(nodes, X, n0, labels, S, h, cache, "view");
  const view = medianAndMean(sums, sizes, G, h, n);
  let integral = 1;
  let asLibrary = true;
  if (S > 1) {
    const grid = normGrid(X, 1, h, S, m.norm);
    asLibrary = grid.asLibrary;
    const normNodes = grid.axes[0];
    const count = normNodes.length;
    const norm = medianAndMean(blockSums(normNodes, X, n0, labels, S, h, cache, "norm"), sizes, count, h, n);
    let total = 0;
    for (let j = 0; j < count; j++) total += norm.median[j];
    integral = total * (normNodes[1] - normNodes[0]);
  }
  const mom = view.median.map((v) => v / integral);
  const strip = stripAt(X, 1, outlier, labels, sizes, [m.x0], h, m.reachPerH * h, 1 / (h * SQRT_2PI));
  return { n, S, h, X, n0, outlier, nodes, sums, scale: view.scale, kde: view.mean, median: view.median, mom, integral, asLibrary, strip };
}
