// Home's Example 1 against the library's: the tophat KDE and the plain median of its
// S = 2|O| + 1 block KDEs on the figure's axis, for |O| = 0, 6 and 20.

import assert from "node:assert/strict";
import { test } from "node:test";

import { computeExample } from "../example.js";
import { linspace } from "../grid.js";
import { library, skip } from "./_fixtures.js";

// Counts of rows over 2 h n: the library's and the script's are the same integers divided
// by the same numbers, up to the last bit.
const RTOL = 1e-12;

test("the KDE and MoM-KDE of Example 1 are the library's", { skip }, () => {
  for (const { payload, library: want } of library.examples) {
    const r = computeExample(payload, linspace(...payload.axis));
    assert.equal(r.S, want.S);
    for (const [name, got] of [["mom", r.mom], ["kde", r.kde]]) {
      want[name].forEach((v, j) => {
        assert.ok(Math.abs(got[j] - v) <= RTOL * Math.max(v, 1e-300) || (v === 0 && got[j] === 0), `${name}[${j}] = ${got[j]}, the library's ${v} (|O| = ${payload.outliers})`);
      });
    }
  }
});
