// Whole frames against the library's fits of the same samples: MoM-KDE on the figure's
// nodes (normalised), its integral, the KDE and the strip at x0, in 1-D and 2-D; and a
// drag's frames (the kept sums of the sample) equal to a frame computed afresh.

import assert from "node:assert/strict";
import { test } from "node:test";

import { linspace } from "../grid.js";
import { compute1d } from "../lesson1d.js";
import { compute2d, sameSample } from "../lesson2d.js";
import { RTOL, assertClose, library, skip } from "./_fixtures.js";

function frame(m) {
  if (m.dim === 1) return compute1d(m, { axis: linspace(...m.axis) });
  return compute2d(m, { xs: linspace(...m.mesh.x), ys: linspace(...m.mesh.y) });
}

test("every frame is the library's", { skip }, () => {
  for (const [i, { payload, library: want }] of library.frames.entries()) {
    const r = frame(payload);
    const what = `frame ${i} (${payload.dim}-D)`;
    assert.equal(r.n, want.n, what);
    assert.equal(r.S, want.S, what);
    assert.ok(r.asLibrary, `${what}: normalised on the library's grid`);
    assert.ok(Math.abs(r.integral - want.integral) <= RTOL * want.integral, `${what}: integral ${r.integral} against ${want.integral}`);
    assertClose(assert, Array.from(r.mom), want.mom, `${what} MoM-KDE`);
    assertClose(assert, Array.from(r.kde), want.kde, `${what} KDE`);
    assertClose(assert, Array.from(r.strip.values), want.strip.values, `${what} strip`);
    assert.deepEqual(Array.from(r.strip.near), want.strip.near, `${what}: the red blocks`);
    for (const key of ["median", "mean"]) {
      assert.ok(Math.abs(r.strip[key] - want.strip[key]) <= RTOL * want.strip[key], `${what}: strip ${key}`);
    }
  }
});

test("a drag's frames, from the kept sums, are frames computed afresh", { skip }, () => {
  for (const { payload } of library.frames) {
    const cache = payload.dim === 1 ? { axis: linspace(...payload.axis) } : { xs: linspace(...payload.mesh.x), ys: linspace(...payload.mesh.y) };
    const compute = payload.dim === 1 ? compute1d : compute2d;
    compute(payload, cache);
    for (const shift of [0.35, -1.2]) {
      const moved = {
        ...payload,
        at: payload.dim === 1 ? payload.at + shift : payload.at.map((v) => v + shift),
        x0: payload.dim === 1 ? payload.x0 - shift : payload.x0.map((v) => v - shift),
      };
      const kept = compute(moved, cache);
      const fresh = frame(moved);
      assertClose(assert, Array.from(kept.mom), Array.from(fresh.mom), "MoM-KDE");
      assertClose(assert, Array.from(kept.kde), Array.from(fresh.kde), "KDE");
      assert.ok(Math.abs(kept.integral - fresh.integral) <= RTOL * fresh.integral);
    }
  }
});

test("a load of the same sample keeps the sums; another sample does not", { skip }, () => {
  const { payload } = library.frames.find((f) => f.payload.dim === 2);
  const copy = JSON.parse(JSON.stringify(payload));
  assert.ok(sameSample(payload, copy));
  copy.rows[5] += 1e-12;
  assert.ok(!sameSample(payload, copy));
  assert.ok(!sameSample(null, payload));
});

test("a drag's shortcut is the full median: the placed rows as sample rows, k = 0", { skip }, () => {
  for (const { payload } of library.frames.filter((f) => f.payload.dim === 2 && f.payload.k > 0)) {
    const cache = { xs: linspace(...payload.mesh.x), ys: linspace(...payload.mesh.y) };
    compute2d(payload, cache);
    const moved = { ...payload, at: payload.at.map((v) => v - 0.8) };
    const kept = compute2d(moved, cache);
    assert.ok(kept.rebuilt > 0, "the drag rebuilt nodes");
    // the same rows in the same order, none placed: every node's median taken afresh
    const placed = Array.from(kept.X.subarray(2 * kept.n0));
    const whole = { ...moved, rows: [...payload.rows, ...placed], rowOutlier: [...payload.rowOutlier, ...placed.filter((_, i) => i % 2 === 0).map(() => 1)], k: 0 };
    const full = compute2d(whole, { xs: cache.xs, ys: cache.ys });
    assertClose(assert, Array.from(kept.mom), Array.from(full.mom), "MoM-KDE");
    assert.ok(Math.abs(kept.integral - full.integral) <= RTOL * full.integral);
  }
});
