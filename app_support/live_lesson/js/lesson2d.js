// The 2-D lesson by the library's rule, as lesson1d.js in 1-D: the maps of the KDE and of
// MoM-KDE (the median of the S block KDEs divided by its Riemann sum on log_integral's grid)
// on the figure's mesh, and the strip at x0.
//
// The sample's rows stay put during a drag: their block sums and the median without the
// placed rows are kept per mesh (node-major, one column of S block sums per node). At a node
// where the placed rows add at most ``bound`` to any block's KDE, the median moves by at most
// ``bound`` (adding values in [0, bound] moves each order statistic by at most bound): where
// that is below EXACT_SHARE of the kept median, the kept one is the median to that share;
// elsewhere the median is taken again. Only the blocks holding a placed row change (a few of
// the S): the other blocks' values at a node, sorted the first time the node is needed and
// kept, and the changed ones, sorted at each frame, are merged by rank (union.js). This holds
// on the figure's mesh; the normalising grid follows the rows' box, so while the cluster is
// at the box's edge every move moves that grid and its sums are recomputed from the rows.

import { normGrid } from "./grid.js";
import { blocksOf, cachedSplit, placedRows, stripAt } from "./lesson1d.js";
import { median } from "./median.js";
import { addKernels2d, axisFactors } from "./sums.js";
import { sortFew, unionMedian } from "./union.js";

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
  cache[name] = { key, sums, total, middle, scale };
  return cache[name];
}

// The KDEs, at each node, of the blocks holding no placed row (slot < 0), sorted, kept with
// the sample's sums; a node is sorted the first time it is needed (most nodes of a drag never
// are).
function othersOf(base, slot, S, c, G) {
  const key = slot.join(",");
  if (!base.others || base.others.key !== key) {
    base.others = { key, slot, S, c, values: new Float64Array(G * (S - c)), sorted: new Uint8Array(G), next: 0 };
  }
  return base.others;
}

// Sorts up to ``budget`` nodes not sorted yet of the kept meshes (the worker does it between
// frames, so that a drag's first frames need not); whether any is left.
export function sortAhead(cache, budget) {
  for (const name of ["view", "norm"]) {
    const base = cache[name];
    const others = base && base.others;
    if (!others) continue;
    const G = others.sorted.length;
    while (others.next < G && budget > 0) {
      if (!others.sorted[others.next]) {
        sortAt(others, base, others.slot, others.S, others.c, others.next);
        budget--;
      }
      others.next++;
    }
    if (others.next < G) return true;
  }
  return false;
}

function sortAt(others, base, slot, S, c, j) {
  if (others.sorted[j]) return;
  const from = j * (S - c);
  let q = from;
  for (let s = 0; s < S; s++) if (slot[s] < 0) others.values[q++] = base.sums[j * S + s] * base.scale[s];
  others.values.subarray(from, from + S - c).sort();
  others.sorted[j] = 1;
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
  // the blocks holding a placed row (their place in ``changed``), and the others
  const changed = [];
  const slot = new Int32Array(S).fill(-1);
  for (let i = 0; i < k; i++) {
    const s = labels[n0 + i];
    if (slot[s] < 0) {
      slot[s] = changed.length;
      changed.push(s);
    }
  }
  const c = changed.length;
  const others = othersOf(base, slot, S, c, G);
  const V = new Float64Array(c);
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
      for (let q = 0; q < c; q++) V[q] = base.sums[j * S + changed[q]];
      for (let i = 0; i < k; i++) V[slot[labels[n0 + i]]] += fx[i * Gx + a] * fy[i * Gy + b];
      for (let q = 0; q < c; q++) V[q] *= scale[changed[q]];
      sortFew(V, c);
      sortAt(others, base, slot, S, c, j);
      middle[j] = unionMedian(others.values, j * (S - c), S - c, V, c);
    }
  }
  return { middle, total, rebuilt };
}

// Whether two loads hold the same sample and mesh (every row, to the bit): then the sums kept
// for the first still hold for the second (their keys name the split, h and the meshes).
export function sameSample(a, b) {
  if (!a || !b || a.rows.length !== b.rows.length || a.seed !== b.seed) return false;
  if (a.mesh.x.join() !== b.mesh.x.join() || a.mesh.y.join() !== b.mesh.y.join()) return false;
  for (let i = 0; i < a.rows.length; i++) if (a.rows[i] !== b.rows[i]) return false;
  for (let i = 0; i < a.rowOutlier.length; i++) if (a.rowOutlier[i] !== b.rowOutlier[i]) return false;
  for (let i = 0; i < a.draws.length; i++) if (a.draws[i] !== b.draws[i]) return false;
  return a.clusterSd === b.clusterSd;
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
