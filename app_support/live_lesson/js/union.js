// The median of a column of which only a few entries change: the others, sorted once, and
// the changed ones, sorted at each call, are two sorted runs; an order statistic of their
// union is found by a scan over how many of the few come before it (O(few) a call, not O(S)).

// The t-th smallest (0-based) of the union of A[from..from+a) and V[0..v), both sorted.
export function unionRank(A, from, a, V, v, t) {
  const lo = Math.max(0, t + 1 - a);
  const hi = Math.min(v, t + 1);
  for (let j = lo; j <= hi; j++) {
    const i = t + 1 - j; // (the first t + 1 values: j of V, i of A)
    if (j > 0 && i < a && V[j - 1] > A[from + i]) continue;
    if (i > 0 && j < v && A[from + i - 1] > V[j]) continue;
    const fromV = j > 0 ? V[j - 1] : -Infinity;
    const fromA = i > 0 ? A[from + i - 1] : -Infinity;
    return fromV > fromA ? fromV : fromA;
  }
  throw new Error("unionRank: the runs are not sorted");
}

// numpy.median of the union (the middle value, or the mean of the two middle ones).
export function unionMedian(A, from, a, V, v) {
  const n = a + v;
  const upper = unionRank(A, from, a, V, v, n >> 1);
  return n % 2 ? upper : (unionRank(A, from, a, V, v, (n >> 1) - 1) + upper) / 2;
}

// V[0..v) sorted in place (insertion sort: v is a few).
export function sortFew(V, v) {
  for (let i = 1; i < v; i++) {
    const x = V[i];
    let j = i - 1;
    while (j >= 0 && V[j] > x) {
      V[j + 1] = V[j];
      j--;
    }
    V[j + 1] = x;
  }
}
