// numpy.median of a column of block values, by selection (no sort).

// The k-th smallest of a[from..from+n) (reordered in place: those before it are not larger).
export function select(a, k, n, from = 0) {
  let lo = from;
  let hi = from + n - 1;
  const target = from + k;
  while (hi > lo) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return a[target];
}

// numpy.median of a[from..from+n): the middle value, or the mean of the two middle ones.
export function median(a, n, from = 0) {
  const half = n >> 1;
  const upper = select(a, half, n, from);
  if (n % 2) return upper;
  let lower = -Infinity;
  for (let i = from; i < from + half; i++) if (a[i] > lower) lower = a[i];
  return (lower + upper) / 2;
}
