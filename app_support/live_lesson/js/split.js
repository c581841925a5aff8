// MoMKDE's blocks: S from the stated share when S is auto, and the split of the rows.

import { permutation } from "./rng.js";

// n_blocks_for: 2 ceil(eps n) + 1 (ceil with a 1e-9 tolerance), capped at n.
export function autoBlocks(n, eps) {
  return Math.min(n, 2 * Math.ceil(eps * n - 1e-9) + 1);
}

// The split of n rows into S blocks (the rows shuffled by the seed's permutation, cut into S
// runs whose sizes differ by at most one, the first n % S one row longer): each row's block
// and each block's size. One block is the sample itself (no shuffle).
export function split(n, S, seed) {
  const sizes = new Int32Array(S);
  for (let s = 0; s < S; s++) sizes[s] = Math.floor(n / S) + (s < n % S ? 1 : 0);
  const labels = new Int32Array(n);
  if (S > 1) {
    const order = permutation(seed, n);
    let start = 0;
    for (let s = 0; s < S; s++) {
      for (let i = start; i < start + sizes[s]; i++) labels[order[i]] = s;
      start += sizes[s];
    }
  }
  return { sizes, labels };
}
