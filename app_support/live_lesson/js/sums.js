// Gaussian kernel sums of the rows at grid nodes, block by block: exp(-u^2 / 2) with u the
// distance in h (the kernel's constant is applied by the estimators, lesson1d.js and
// lesson2d.js).

// Beyond 38.6 h a Gaussian term is below exp(-745) of its peak: it underflows to 0 anyway.
export const CUT = 38.6;
export const SQRT_2PI = Math.sqrt(2 * Math.PI);

// 1-D: the terms of rows [from, to) added to their block's sums at the nodes within CUT h
// (sums is block-major: sums[s * G + j]). From the node nearest each row outwards, a term is
// the previous one times a ratio that itself shrinks by exp(-delta^2) a node (delta: the
// spacing in h), recomputed exactly every EXACT_EVERY nodes, so that the products'
// round-off stays near 1e-13 relative.
const EXACT_EVERY = 64;
export function addKernels(sums, nodes, X, labels, from, to, h) {
  const G = nodes.length;
  const g0 = nodes[0];
  const dg = (nodes[G - 1] - g0) / (G - 1);
  const delta = dg / h;
  const shrink = Math.exp(-delta * delta);
  for (let i = from; i < to; i++) {
    const x = X[i];
    const off = labels[i] * G;
    const j0 = Math.max(0, Math.ceil((x - CUT * h - g0) / dg) - 1);
    const j1 = Math.min(G - 1, Math.floor((x + CUT * h - g0) / dg) + 1);
    if (j0 > j1) continue;
    const jc = Math.min(j1, Math.max(j0, Math.round((x - g0) / dg)));
    let term = 0;
    let ratio = 0;
    for (let j = jc; j <= j1; j++) {
      if ((j - jc) % EXACT_EVERY === 0) {
        const u = (nodes[j] - x) / h;
        term = Math.exp(-0.5 * u * u);
        ratio = Math.exp(-u * delta - 0.5 * delta * delta);
      } else {
        term *= ratio;
        ratio *= shrink;
      }
      sums[off + j] += term;
    }
    for (let j = jc - 1; j >= j0; j--) {
      if ((jc - 1 - j) % EXACT_EVERY === 0) {
        const u = (nodes[j] - x) / h;
        term = Math.exp(-0.5 * u * u);
        ratio = Math.exp(u * delta - 0.5 * delta * delta);
      } else {
        term *= ratio;
        ratio *= shrink;
      }
      sums[off + j] += term;
    }
  }
}

// One row's factors on an axis: exp(-u^2 / 2) at each node (u = (node - x) / h), written
// into out[offset .. offset + nodes.length). A 2-D Gaussian term is the product of its two
// axes' factors.
export function axisFactors(nodes, x, h, out, offset = 0) {
  for (let j = 0; j < nodes.length; j++) {
    const u = (nodes[j] - x) / h;
    out[offset + j] = Math.exp(-0.5 * u * u);
  }
  return out;
}

// 2-D: the terms of rows [from, to) of X (n x 2, row-major) on the mesh xs x ys ("ij": node
// a * ys.length + b), summed by block (node-major: sums[node * S + block]).
export function addKernels2d(sums, xs, ys, X, labels, from, to, h, S) {
  const Gx = xs.length;
  const Gy = ys.length;
  const fx = new Float64Array(Gx);
  const fy = new Float64Array(Gy);
  for (let i = from; i < to; i++) {
    axisFactors(xs, X[2 * i], h, fx);
    axisFactors(ys, X[2 * i + 1], h, fy);
    const s = labels[i];
    for (let a = 0; a < Gx; a++) {
      const f = fx[a];
      if (f === 0) continue;
      let at = a * Gy * S + s;
      for (let b = 0; b < Gy; b++, at += S) sums[at] += f * fy[b];
    }
  }
}
