// The grids the lesson computes on: numpy.linspace, and the grid log_integral builds to
// normalise MoM-KDE's median (the rows' box widened by a margin, a node every step h).

// numpy.linspace(start, stop, count): j * step + start, the last node exactly stop.
export function linspace(start, stop, count) {
  const out = new Float64Array(count);
  const step = (stop - start) / (count - 1);
  for (let j = 0; j < count; j++) out[j] = j * step + start;
  out[count - 1] = stop;
  return out;
}

// log_integral's grid for rows X (n x d, row-major) and h: per axis the nodes, and whether
// the library sums on it (true) or would sample instead (too many nodes or block values);
// where it would sample, the axes are capped at maxNodes nodes.
export function normGrid(X, d, h, S, rule) {
  const n = X.length / d;
  const margin = rule.margin * h;
  const axes = [];
  let cells = 1;
  let fits = true;
  for (let c = 0; c < d; c++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = X[i * d + c];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    let count = Math.max(Math.ceil((hi - lo + 2 * margin) / (rule.step * h)) + 1, rule.minNodes);
    if (count > rule.maxNodes) {
      fits = false;
      count = rule.maxNodes;
    }
    cells *= count;
    axes.push(linspace(lo - margin, hi + margin, count));
  }
  return { axes, asLibrary: fits && S * cells <= rule.maxCells };
}
