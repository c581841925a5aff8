// The library's values the tests compare with, written by tests/app/test_live_lesson_js.py
// (its path in MOMKDE_LIVE_FIXTURES). Without it, the tests that need them are skipped.

import { readFileSync } from "node:fs";

const path = process.env.MOMKDE_LIVE_FIXTURES;

export const library = path ? JSON.parse(readFileSync(path, "utf8")) : null;
export const skip = library ? false : "no fixtures: run tests/app/test_live_lesson_js.py";

// The relative gap RTOL allows: the library's sums (in log space) and the script's (linear)
// add the same terms in other orders, the 1-D script builds a term from its neighbour's
// (exact every 64 nodes): ~1e-13 apart, far below RTOL. Below FLOOR the terms reach the
// subnormal range, where a double keeps few digits: there both are only tiny.
export const RTOL = 1e-9;
export const FLOOR = 1e-250;

export function assertClose(assert, got, want, what) {
  assert.equal(got.length, want.length, `${what}: as many values`);
  let compared = 0;
  for (let i = 0; i < want.length; i++) {
    if (want[i] > FLOOR) {
      compared++;
      const gap = Math.abs(got[i] - want[i]) / want[i];
      assert.ok(gap <= RTOL, `${what}[${i}]: ${got[i]} against the library's ${want[i]} (relative ${gap})`);
    } else {
      assert.ok(got[i] < 1e3 * FLOOR, `${what}[${i}]: ${got[i]} where the library's is ${want[i]}`);
    }
  }
  assert.ok(compared > want.length / 4, `${what}: most values compared`);
}
