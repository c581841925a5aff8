// The 2-D lesson by the library's rule, as lesson1d.js in 1-D: the maps of the KDE and of
// MoM-KDE (the median of the S block KDEs divided by its Riemann sum on log_integral's grid)
// on the figure's mesh, and the strip at x0.
//
// The sample's rows stay put during a drag: their block sums and the median without the
// placed rows are kept per mesh (node-major, one column of S block sums per node). At a node
// where the placed rows add at most ``bound`` to any block's KDE, the median moves by at most
// ``bound`` (adding values in [0, bound] moves each order statistic by at most bound): where
// that is below EXACT_SHARE of the kept median, the kept one is the median to that share;
// elsewhere the column is rebuilt with the placed rows and its median taken.

import { normGrid } from "./grid.js";
import { blocksOf, cachedSplit, placedRows, stripAt } from "./lesson1d.js";
import { median } from "./median.js";
import { addKernels2d, axisFactors } from "./sums.js";

export const EXACT_SHARE = 1e-13;

// The sample's block sums on the mesh xs x ys, their total and their median (on the block
// KDEs' scale), kept in cache[name] while the split, h and the mesh stay.
function baseOf(xs, ys, X, n0, labels, scale, h, cache, name) {
  const S = scale.length;
  const key = `${cache.split.key}|${h}|${xs[0]}|${xs[xs.length - 1]}|${xs.length}|${ys[0]}|${ys[ys.length - 1]}|${ys.length}`;
  if (cache[name] && cache[name].key === key) return cache[name];
  const G = xs.length * ys.length;
  const sums = new Float64Array(G * S);
  addKernels2d(sums, xs, ys, X, labels, 0, n0, h, S);
  const total = new Float64Array(G);
  const middle = new Float64Array(G);
  const column = new Float64Array(S);
  for (let j = 0; j < G; j++) {
    let t = 0;
    for (let s = 0; s < S; s++) {
      const raw = sums[j * S + s];
      t += raw;
      column[s] = raw * scale[s];
    }
    total[j] = t;
    middle[j] = median(column, S);
  }
  cache[name] = { key, sums, total, middle };
  return cache[name];
}

// The median and the raw total of the block sums at every node of xs x ys, the placed rows
// (k..n of X) included; how many nodes were rebuilt.
function withPlaced(xs, ys, X, n0, n, labels, scale, h, cache, name) {
  const S = scale.length;
  const base = baseOf(xs, ys, X, n0, labels, scale, h, cache, name);
  const Gx = xs.length;
  const Gy = ys.length;
  const G = Gx * Gy;
  const k = n - n0;
  const middle = new Float64Array(G);
  const total = base.total.slice();
  if (k === 0) {
    middle.set(base.middle);
    return { middle, total, rebuilt: 0 };
  }
  const fx = new Float64Array(k * Gx);
  const fy = new Float64Array(k * Gy);
  const maxX = new Float64Array(Gx);
  const maxY = new Float64Array(Gy);
  const perBlock = new Float64Array(S);
  for (let i = 0; i < k; i++) {
    axisFactors(xs, X[2 * (n0 + i)], h, fx, i * Gx);
    axisFactors(ys, X[2 * (n0 + i) + 1], h, fy, i * Gy);
    for (let a = 0; a < Gx; a++) if (fx[i * Gx + a] > maxX[a]) maxX[a] = fx[i * Gx + a];
    for (let b = 0; b < Gy; b++) if (fy[i * Gy + b] > maxY[b]) maxY[b] = fy[i * Gy + b];
    perBlock[labels[n0 + i]] += 1;
  }
  let most = 0; // the most a placed row's terms can add to one block's KDE, per unit term
  for (let s = 0; s < S; s++) if (perBlock[s] * scale[s] > most) most = perBlock[s] * scale[s];
  const column = new Float64Array(S);
  let rebuilt = 0;
  for (let a = 0; a < Gx; a++) {
    for (let b = 0; b < Gy; b++) {
      const j = a * Gy + b;
      let added = 0;
      for (let i = 0; i < k; i++) added += fx[i * Gx + a] * fy[i * Gy + b];
      total[j] += added;
      const kept = base.middle[j];
      if (most * maxX[a] * maxY[b] <= EXACT_SHARE * kept) {
        middle[j] = kept;
        continue;
      }
      rebuilt++;
      const from = j * S;
      for (let s = 0; s < S; s++) column[s] = base.sums[from + s] * scale[s];
      for (let i = 0; i < k; i++) {
        const s = labels[n0 + i];
        column[s] += fx[i * Gx + a] * fy[i * Gy + b] * scale[s];
      }
      middle[j] = median(column, S);
    }
  }
  return { middle, total, rebuilt };
}

// Everything one frame of the 2-D lesson draws (cache.xs, cache.ys: the figure's mesh).
export function compute2d(m, cache) {
  const { X, outlier, n0, n } = placedRows(m, 2);
  const S = blocksOf(m, n);
  const { sizes, labels } = cachedSplit(n, S, m.seed, cache);
  const h = m.h;
  const unit = 1 / (2 * Math.PI * h * h); // the 2-D Gaussian kernel's constant
  const scale = new Float64Array(S);
  for (let s = 0; s < S; s++) scale[s] = unit / sizes[s];
  const { xs, ys } = cache;
  const view = withPlaced(xs, ys, X, n0, n, labels, scale, h, cache, "view");
  const G = xs.length * ys.length;
  const kde = new Float64Array(G);
  for (let j = 0; j < G; j++) kde[j] = (view.total[j] * unit) / n;
  let integral = 1;
  let asLibrary = true;
  let rebuilt = view.rebuilt;
  if (S > 1) {
    const grid = normGrid(X, 2, h, S, m.norm);
    asLibrary = grid.asLibrary;
    const [gx, gy] = grid.axes;
    const norm = withPlaced(gx, gy, X, n0, n, labels, scale, h, cache, "norm");
    rebuilt += norm.rebuilt;
    let total = 0;
    for (let j = 0; j < norm.middle.length; j++) total += norm.middle[j];
    integral = total * (gx[1] - gx[0]) * (gy[1] - gy[0]);
  }
  const mom = view.middle.map((v) => v / integral);
  const strip = stripAt(X, 2, outlier, labels, sizes, m.x0, h, m.reachPerH * h, unit);
  return { n, S, h, X, n0, outlier, kde, mom, median: view.middle, integral, asLibrary, strip, rebuilt };
}
