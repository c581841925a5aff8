// An order statistic of two sorted runs' union is the sorted union's, whatever the runs'
// lengths, ties and places of the few.

import assert from "node:assert/strict";
import { test } from "node:test";

import { median } from "../median.js";
import { sortFew, unionMedian, unionRank } from "../union.js";

function random(seed) {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) / 2 ** 24;
  };
}

test("unionRank is the rank of the sorted union", () => {
  const draw = random(7);
  for (let trial = 0; trial < 300; trial++) {
    const a = Math.floor(draw() * 30);
    const v = Math.floor(draw() * 6);
    if (a + v === 0) continue;
    const tie = () => Math.round(draw() * 8) / 4; // (values with ties)
    const A = Float64Array.from({ length: a + 3 }, tie);
    const run = A.subarray(3).sort();
    const V = Float64Array.from({ length: v }, tie);
    sortFew(V, v);
    const all = [...run, ...V].sort((x, y) => x - y);
    for (let t = 0; t < a + v; t++) assert.equal(unionRank(A, 3, a, V, v, t), all[t], `trial ${trial}, t ${t}`);
    assert.equal(unionMedian(A, 3, a, V, v), median(Float64Array.from(all), all.length));
  }
});
