// numpy's permutation, MoMKDE's split and S auto, as the library makes them.

import assert from "node:assert/strict";
import { test } from "node:test";

import { permutation } from "../rng.js";
import { autoBlocks, split } from "../split.js";
import { library, skip } from "./_fixtures.js";

test("RandomState(seed).permutation(n), to the index", { skip }, () => {
  for (const { seed, n, order } of library.permutations) {
    assert.deepEqual(Array.from(permutation(seed, n)), order, `seed ${seed}, n ${n}`);
  }
});

test("each row's block is MoMKDE's block_of_", { skip }, () => {
  for (const { n, S, seed, labels } of library.splits) {
    const got = split(n, S, seed);
    assert.deepEqual(Array.from(got.labels), labels, `n ${n}, S ${S}, seed ${seed}`);
    const sizes = new Array(S).fill(0);
    for (const l of labels) sizes[l]++;
    assert.deepEqual(Array.from(got.sizes), sizes);
  }
});

test("S auto is n_blocks_for's", { skip }, () => {
  for (const { n, eps, S } of library.autoBlocks) assert.equal(autoBlocks(n, eps), S, `n ${n}, eps ${eps}`);
});

test("blocks differ in size by at most one, the first n % S longer", () => {
  const { sizes } = split(23, 5, 0);
  assert.deepEqual(Array.from(sizes), [5, 5, 5, 4, 4]);
  assert.deepEqual(Array.from(split(4, 1, 3).labels), [0, 0, 0, 0]);
});
