// The median of a column is numpy.median's: the middle value, or the two middle ones'
// mean; selection leaves the column a permutation of itself.

import assert from "node:assert/strict";
import { test } from "node:test";

import { median, select } from "../median.js";
import { library, skip } from "./_fixtures.js";

test("numpy.median of odd and even columns", { skip }, () => {
  for (const { values, median: want } of library.medians) {
    assert.equal(median(Float64Array.from(values), values.length), want);
  }
});

test("a median inside a longer array (from an offset)", () => {
  const a = Float64Array.from([9, 9, 3, 1, 2, 9]);
  assert.equal(median(a, 3, 2), 2);
  assert.deepEqual(Array.from(a.subarray(0, 2)), [9, 9]);
});

test("select keeps the values and puts no larger one before the k-th", () => {
  const a = Float64Array.from([5, 3, 8, 1, 9, 2, 7]);
  const third = select(a, 2, a.length);
  assert.equal(third, 3);
  assert.deepEqual(Array.from(a).sort((x, y) => x - y), [1, 2, 3, 5, 7, 8, 9]);
  for (let i = 0; i < 2; i++) assert.ok(a[i] <= third);
});
