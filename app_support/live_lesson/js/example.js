// Home's lesson, the paper's Example 1, by the library's rule (app_support.lessons.
// example_one): the inliers, then the first |O| of the outliers' draws; the tophat kernel
// (a row counts at a node less than h away); MoMKDE's split into S = 2|O| + 1 blocks (at
// most n) and the plain median of the block KDEs (normalize=False), and the KDE.

import { median } from "./median.js";
import { split } from "./split.js";

// S for |O| outliers: the smallest S that guarantees S > 2|O|, at most n.
export function exampleBlocks(outliers, n) {
  return Math.min(2 * outliers + 1, n);
}

// The counts of the rows [from, to) of X less than h from each node, added to their block's
// (block-major: counts[s * G + j]).
export function addTophat(counts, nodes, X, labels, from, to, h) {
  const G = nodes.length;
  const g0 = nodes[0];
  const dg = (nodes[G - 1] - g0) / (G - 1);
  for (let i = from; i < to; i++) {
    const x = X[i];
    const off = labels[i] * G;
    const j0 = Math.max(0, Math.floor((x - h - g0) / dg));
    const j1 = Math.min(G - 1, Math.ceil((x + h - g0) / dg));
    for (let j = j0; j <= j1; j++) if (Math.abs(nodes[j] - x) / h < 1) counts[off + j] += 1;
  }
}

export function computeExample(m, nodes) {
  const n0 = m.rows.length;
  const n = n0 + m.outliers;
  const X = new Float64Array(n);
  X.set(m.rows);
  for (let i = 0; i < m.outliers; i++) X[n0 + i] = m.draws[i];
  const S = exampleBlocks(m.outliers, n);
  const { sizes, labels } = split(n, S, m.seed);
  const G = nodes.length;
  const counts = new Float64Array(S * G);
  addTophat(counts, nodes, X, labels, 0, n, m.h);
  const kde = new Float64Array(G);
  const mom = new Float64Array(G);
  const column = new Float64Array(S);
  for (let j = 0; j < G; j++) {
    let total = 0;
    for (let s = 0; s < S; s++) {
      total += counts[s * G + j];
      column[s] = counts[s * G + j] / (sizes[s] * 2 * m.h);
    }
    kde[j] = total / (n * 2 * m.h);
    mom[j] = median(column, S);
  }
  const outlier = new Uint8Array(n);
  for (let i = n0; i < n; i++) outlier[i] = 1;
  return { n, n0, S, X, outlier, kde, mom };
}
