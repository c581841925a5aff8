// Explore's live lesson: the sample, the truth, the KDE, MoM-KDE (and its block KDEs), the
// locked point x0 and the strip of the S block KDEs at x0, recomputed and redrawn in the page
// at every pointer move of a drag, with no server run until the pointer is let go.
//
// What the browser computes follows the library's rule (app_support/live_lesson/payload.py
// says which): the rows (the sample, then k placed rows at + sd * draws[i]), MoMKDE's split
// (numpy's RandomState(seed).permutation(n), cut into S runs), each block's Gaussian KDE,
// their pointwise median divided by its Riemann sum on log_integral's grid, and their mean
// weighted by the blocks' sizes (the KDE). The numbers are exposed as window.__liveLesson,
// which tests/app/test_live_lesson.py compares with the library.
//
// Contract (the page's own checks): the root has data-testid="live-lesson" and data-frame,
// one more at every redraw; the handles have data-role="cluster-handle" and "x0-handle".

const SQRT_2PI = Math.sqrt(2 * Math.PI);
// Beyond 38.6 h a Gaussian term is below exp(-745) of its peak: it underflows to 0 anyway.
const CUT = 38.6;
const SVG = "http://www.w3.org/2000/svg";
const MAX_DRAWN_BLOCK_POINTS = 60000; // block curves' vertices per redraw (thinned beyond)
const MAX_LATENCIES = 2000;

// ---------------------------------------------------------------- numpy's legacy shuffle

// MT19937 as numpy.random.RandomState(seed) seeds it (init_genrand) and draws 32 bits.
class MT19937 {
  constructor(seed) {
    this.mt = new Uint32Array(624);
    this.mt[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const p = this.mt[i - 1] ^ (this.mt[i - 1] >>> 30);
      this.mt[i] = (Math.imul(1812433253, p) + i) >>> 0;
    }
    this.index = 624;
  }

  twist() {
    const mt = this.mt;
    for (let i = 0; i < 624; i++) {
      const y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7fffffff);
      mt[i] = mt[(i + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.index = 0;
  }

  next32() {
    if (this.index >= 624) this.twist();
    let y = this.mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
}

// numpy's random_interval: a draw in [0, max] by masked rejection (max < 2^32 here).
function interval(rng, max) {
  if (max === 0) return 0;
  let mask = max;
  mask |= mask >>> 1;
  mask |= mask >>> 2;
  mask |= mask >>> 4;
  mask |= mask >>> 8;
  mask |= mask >>> 16;
  let value;
  do {
    value = (rng.next32() & mask) >>> 0;
  } while (value > max);
  return value;
}

// RandomState(seed).permutation(n): Fisher-Yates from the last index down.
function permutation(seed, n) {
  const rng = new MT19937(seed);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i >= 1; i--) {
    const j = interval(rng, i);
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  return order;
}

// ---------------------------------------------------------------- the library's formula

// numpy.linspace(start, stop, count): j * step + start, the last node exactly stop.
function linspace(start, stop, count) {
  const out = new Float64Array(count);
  const step = (stop - start) / (count - 1);
  for (let j = 0; j < count; j++) out[j] = j * step + start;
  out[count - 1] = stop;
  return out;
}

// n_blocks_for: 2 ceil(eps n) + 1 (ceil with a 1e-9 tolerance), capped at n.
function autoBlocks(n, eps) {
  return Math.min(n, 2 * Math.ceil(eps * n - 1e-9) + 1);
}

// MoMKDE's split of n rows into S blocks: each row's block and each block's size.
function split(n, S, seed, cache) {
  const key = `${n}|${S}|${seed}`;
  if (cache.split && cache.split.key === key) return cache.split;
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
  cache.split = { key, sizes, labels };
  return cache.split;
}

// exp(-u^2 / 2) of rows [from, to) added to their block's sums at the nodes within CUT h.
// From the node nearest each row outwards, a term is the previous one times a ratio that
// itself shrinks by exp(-delta^2) a node (delta: the spacing in h), recomputed exactly every
// EXACT_EVERY nodes, so that the products' round-off stays near 1e-13 relative.
const EXACT_EVERY = 64;
function addKernels(sums, nodes, X, labels, from, to, h) {
  const G = nodes.length;
  const g0 = nodes[0];
  const dg = (nodes[G - 1] - g0) / (G - 1);
  const delta = dg / h;
  const shrink = Math.exp(-delta * delta);
  for (let i = from; i < to; i++) {
    const x = X[i];
    const off = labels[i] * G;
    const j0 = Math.max(0, Math.ceil((x - CUT * h - g0) / dg) - 1);
    const j1 = Math.min(G - 1, Math.floor((x + CUT * h - g0) / dg) + 1);
    if (j0 > j1) continue;
    const jc = Math.min(j1, Math.max(j0, Math.round((x - g0) / dg)));
    let term = 0;
    let ratio = 0;
    for (let j = jc; j <= j1; j++) {
      if ((j - jc) % EXACT_EVERY === 0) {
        const u = (nodes[j] - x) / h;
        term = Math.exp(-0.5 * u * u);
        ratio = Math.exp(-u * delta - 0.5 * delta * delta);
      } else {
        term *= ratio;
        ratio *= shrink;
      }
      sums[off + j] += term;
    }
    for (let j = jc - 1; j >= j0; j--) {
      if ((jc - 1 - j) % EXACT_EVERY === 0) {
        const u = (nodes[j] - x) / h;
        term = Math.exp(-0.5 * u * u);
        ratio = Math.exp(u * delta - 0.5 * delta * delta);
      } else {
        term *= ratio;
        ratio *= shrink;
      }
      sums[off + j] += term;
    }
  }
}

// The k-th smallest of a[0..n) (a reordered in place: those before it are not larger).
function select(a, k, n) {
  let lo = 0;
  let hi = n - 1;
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
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k];
}

// numpy.median of a[0..n): the middle value, or the mean of the two middle ones.
function median(a, n) {
  const half = n >> 1;
  const upper = select(a, half, n);
  if (n % 2) return upper;
  let lower = -Infinity;
  for (let i = 0; i < half; i++) if (a[i] > lower) lower = a[i];
  return (lower + upper) / 2;
}

// Each block's kernel sums on ``nodes``: the sample's rows from a cache (they move with
// neither the cluster nor x0), the placed rows added at each call.
function blockSums(nodes, X, n0, labels, S, h, cache, name) {
  const key = `${name}|${n0}|${X.length}|${S}|${h}|${nodes[0]}|${nodes[nodes.length - 1]}|${nodes.length}`;
  if (!cache[name] || cache[name].key !== key) {
    const base = new Float64Array(S * nodes.length);
    addKernels(base, nodes, X, labels, 0, n0, h);
    cache[name] = { key, base };
  }
  const sums = cache[name].base.slice();
  addKernels(sums, nodes, X, labels, n0, X.length, h);
  return sums;
}

// The median over the blocks of their KDEs (numpy.median's: the mean of the two middle
// values when S is even) at each node, and the KDE (the size-weighted mean).
function medianAndMean(sums, sizes, G, h, n) {
  const S = sizes.length;
  const scale = new Float64Array(S);
  for (let s = 0; s < S; s++) scale[s] = 1 / (sizes[s] * h * SQRT_2PI);
  const middle = new Float64Array(G);
  const mean = new Float64Array(G);
  const column = new Float64Array(S);
  for (let j = 0; j < G; j++) {
    let total = 0;
    let live = 0;
    for (let s = 0; s < S; s++) {
      const raw = sums[s * G + j];
      total += raw;
      column[s] = raw * scale[s];
      if (raw !== 0) live++;
    }
    mean[j] = total / (n * h * SQRT_2PI);
    if (live <= (S - 1) >> 1) continue; // both middle values are 0
    middle[j] = median(column, S);
  }
  return { median: middle, mean, scale };
}

// Everything one frame draws, for the model's k, place, x0, h and S.
function compute(m, cache) {
  const n0 = m.rows.length;
  const n = n0 + m.k;
  const X = new Float64Array(n);
  X.set(m.rows);
  const outlier = new Uint8Array(n);
  for (let i = 0; i < n0; i++) outlier[i] = m.rowOutlier[i];
  for (let i = 0; i < m.k; i++) {
    X[n0 + i] = m.at + m.clusterSd * m.draws[i];
    outlier[n0 + i] = 1;
  }
  const S = m.autoS ? autoBlocks(n, m.eps) : Math.min(m.S, n);
  const { sizes, labels } = split(n, S, m.seed, cache);
  const h = m.h;

  // the figure's axis
  const nodes = cache.axis;
  const G = nodes.length;
  const sums = blockSums(nodes, X, n0, labels, S, h, cache, "view");
  const view = medianAndMean(sums, sizes, G, h, n);

  // the median's integral on log_integral's grid (none for one block)
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    if (X[i] < lo) lo = X[i];
    if (X[i] > hi) hi = X[i];
  }
  const margin = m.norm.margin * h;
  const count = Math.max(Math.ceil((hi - lo + 2 * margin) / (m.norm.step * h)) + 1, m.norm.minNodes);
  let integral = 1;
  const asLibrary = S === 1 || (count <= m.norm.maxNodes && S * count <= m.norm.maxCells);
  if (S > 1) {
    const normNodes = linspace(lo - margin, hi + margin, count);
    const normSums = blockSums(normNodes, X, n0, labels, S, h, cache, "norm");
    const norm = medianAndMean(normSums, sizes, count, h, n);
    let total = 0;
    for (let j = 0; j < count; j++) total += norm.median[j];
    integral = total * (normNodes[1] - normNodes[0]);
  }
  const mom = view.median.map((v) => v / integral);

  // the strip: each block's KDE at x0, and the blocks holding an outlier (near x0, anywhere)
  const reach = m.reachPerH * h;
  const atX0 = new Float64Array(S);
  const near = new Uint8Array(S);
  const holds = new Uint8Array(S);
  for (let i = 0; i < n; i++) {
    const u = (m.x0 - X[i]) / h;
    atX0[labels[i]] += Math.exp(-0.5 * u * u);
    if (outlier[i]) {
      holds[labels[i]] = 1;
      if (Math.abs(X[i] - m.x0) <= reach) near[labels[i]] = 1;
    }
  }
  let weighted = 0;
  for (let s = 0; s < S; s++) {
    weighted += atX0[s] / (h * SQRT_2PI);
    atX0[s] *= view.scale[s];
  }
  const stripMedian = median(Float64Array.from(atX0), S);
  return {
    n,
    S,
    h,
    X,
    n0,
    outlier,
    nodes,
    sums,
    scale: view.scale,
    kde: view.mean,
    median: view.median,
    mom,
    integral,
    asLibrary,
    strip: { values: atX0, near, holds, median: stripMedian, mean: weighted / n, reach },
  };
}

// ---------------------------------------------------------------- drawing

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function html(tag, attrs = {}, parent = null, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function fmt(v) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e4 ? Number(v.toPrecision(3)).toString() : v.toExponential(2);
}

// A density as the server's captions write it (app_support.captions.median.density): "≈ 0"
// below 1e-4, where a Gaussian kernel's far tail (1e-56, say) is noise, not a value.
function dens(v) {
  return v < 1e-4 ? "≈ 0" : fmt(v);
}

function niceTicks(lo, hi, target) {
  const raw = (hi - lo) / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw);
  if (!(step > 0) || !Number.isFinite(step)) return [lo]; // a range below the smallest doubles
  const ticks = [];
  for (let i = Math.ceil(lo / step); i * step <= hi * (1 + 1e-12) && ticks.length <= 2 * target; i++) {
    ticks.push(i * step);
  }
  return ticks;
}

const PLOT = { left: 58, right: 14, top: 12, bottom: 58, height: 340 };
const STRIP = { left: 58, right: 14, top: 8, bottom: 36, height: 150 };

function build(root) {
  root.innerHTML = "";
  const box = html("div", { class: "live", "data-testid": "live-lesson", "data-frame": "0" }, root);
  const controls = html("div", { class: "controls" }, box);
  const sliders = {};
  for (const [role, label] of [
    ["k", "k, the outliers placed"],
    ["h", "h"],
    ["s", "S, the blocks"],
  ]) {
    const wrap = html("label", { class: "control" }, controls);
    const name = html("span", { class: "name" }, wrap, label);
    const input = html("input", { type: "range", "data-role": `${role}-slider` }, wrap);
    const out = html("output", {}, wrap);
    sliders[role] = { input, out, name };
  }
  const legend = html("div", { class: "legend" }, box);
  const plot = el("svg", { class: "plot", role: "img", "aria-label": "densities" }, box);
  const layers = {};
  for (const name of ["grid", "blocks", "truth", "curves", "kde", "mom", "rug", "cluster", "x0"]) {
    layers[name] = el("g", { class: name }, plot);
  }
  const clusterHandle = el(
    "path",
    { "data-role": "cluster-handle", tabindex: "0", class: "handle cluster-handle" },
    plot,
  );
  const x0Handle = el("circle", { "data-role": "x0-handle", tabindex: "0", class: "handle x0-handle", r: "8" }, plot);
  html("div", { class: "strip-title" }, box, "MoM-KDE's S blocks at x₀: each dot is one block's KDE there");
  const strip = el("svg", { class: "strip", role: "img", "aria-label": "the blocks at x0" }, box);
  const stripLayers = { grid: el("g", {}, strip), lines: el("g", {}, strip), dots: el("g", {}, strip) };
  const readout = html("p", { class: "readout", "data-role": "readout" }, box);
  return { box, sliders, legend, plot, layers, clusterHandle, x0Handle, strip, stripLayers, readout };
}

function linePath(xs, ys, sx, sy, stride = 1) {
  let d = "";
  for (let j = 0; j < xs.length; j += stride) {
    d += `${j ? "L" : "M"}${sx(xs[j]).toFixed(1)},${sy(ys[j]).toFixed(1)}`;
  }
  return d;
}

function setPath(layer, d, attrs) {
  let path = layer.firstChild;
  if (!path) path = el("path", {}, layer);
  path.setAttribute("d", d);
  for (const [k, v] of Object.entries(attrs)) path.setAttribute(k, v);
}

function drawAxes(layer, sx, sy, yTicks, xTicks, width, height, yLabel, xLabel, log, labelAt) {
  layer.replaceChildren();
  for (const t of xTicks) {
    const x = sx(t);
    el("line", { x1: x, x2: x, y1: height, y2: height + 5, class: "tick" }, layer);
    el("text", { x, y: height + 18, class: "tick-label", "text-anchor": "middle" }, layer).textContent = fmt(t);
  }
  for (const t of yTicks) {
    const y = sy(t);
    el("line", { x1: PLOT.left, x2: width - PLOT.right, y1: y, y2: y, class: "gridline" }, layer);
    el("text", { x: PLOT.left - 6, y: y + 4, class: "tick-label", "text-anchor": "end" }, layer).textContent = log
      ? `1e${Math.round(Math.log10(t))}`
      : fmt(t);
  }
  el("line", { x1: PLOT.left, x2: width - PLOT.right, y1: height, y2: height, class: "axis" }, layer);
  if (yLabel) {
    const label = el("text", { class: "axis-label", transform: `translate(14,${(PLOT.top + height) / 2}) rotate(-90)`, "text-anchor": "middle" }, layer);
    label.textContent = yLabel;
  }
  el("text", { x: (PLOT.left + width - PLOT.right) / 2, y: height + labelAt, class: "axis-label", "text-anchor": "middle" }, layer).textContent = xLabel;
}

function draw(state) {
  const { m, r, dom } = state;
  const width = Math.max(420, dom.box.clientWidth || 700);
  const base = PLOT.height - PLOT.bottom; // the density axis' bottom, in pixels
  dom.plot.setAttribute("viewBox", `0 0 ${width} ${PLOT.height}`);
  dom.plot.setAttribute("width", width);
  dom.plot.setAttribute("height", PLOT.height);
  const [lo, hi] = m.axis;
  const sx = (x) => PLOT.left + ((x - lo) / (hi - lo)) * (width - PLOT.left - PLOT.right);
  let peak = 0;
  for (const arr of [r.kde, r.mom, m.truth]) for (const v of arr) if (v > peak) peak = v;
  let sy;
  let yTicks;
  if (m.logY) {
    const top = Math.log10(1.3 * peak);
    const floor = top - 4;
    sy = (v) => PLOT.top + ((top - Math.log10(Math.max(v, 10 ** floor))) / (top - floor)) * (base - PLOT.top);
    yTicks = [];
    for (let d = Math.ceil(floor); d <= Math.floor(top); d++) yTicks.push(10 ** d);
  } else {
    const top = 1.08 * peak;
    sy = (v) => PLOT.top + (1 - Math.min(v, top) / top) * (base - PLOT.top);
    yTicks = niceTicks(0, top, 5);
  }
  drawAxes(dom.layers.grid, sx, sy, yTicks, niceTicks(lo, hi, 8), width, base, m.logY ? "density (log)" : "density", "x", m.logY, 54);

  const nodes = r.nodes;
  const G = nodes.length;
  if (m.showBlocks) {
    const stride = Math.max(1, Math.ceil((r.S * G) / MAX_DRAWN_BLOCK_POINTS));
    let d = "";
    const ys = new Float64Array(G);
    for (let s = 0; s < r.S; s++) {
      for (let j = 0; j < G; j++) ys[j] = (r.sums[s * G + j] * r.scale[s]) / r.integral;
      d += linePath(nodes, ys, sx, sy, stride);
    }
    setPath(dom.layers.blocks, d, { stroke: m.colors.block, class: "line blocks" });
  } else {
    dom.layers.blocks.replaceChildren();
  }
  setPath(dom.layers.truth, linePath(nodes, m.truth, sx, sy), { stroke: m.colors.truth, class: "line truth" });
  dom.layers.curves.replaceChildren();
  for (const c of m.curves) {
    el("path", { d: linePath(c.x, c.y, sx, sy), stroke: c.color, class: "line server" }, dom.layers.curves);
  }
  setPath(dom.layers.kde, linePath(nodes, r.kde, sx, sy), { stroke: m.colors.kde, class: "line kde" });
  setPath(dom.layers.mom, linePath(nodes, r.mom, sx, sy), { stroke: m.colors.mom_kde, class: "line mom" });

  // the rug: the sample's rows (its outliers red), the placed rows longer, in red
  let inliers = "";
  let outliers = "";
  for (let i = 0; i < r.n; i++) {
    const x = sx(r.X[i]).toFixed(1);
    const tick = i >= r.n0 ? `M${x},${base + 2}V${base + 20}` : `M${x},${base + 2}V${base + 12}`;
    if (r.outlier[i]) outliers += tick;
    else inliers += tick;
  }
  dom.layers.rug.replaceChildren();
  el("path", { d: inliers, class: "rug", stroke: m.colors.truth }, dom.layers.rug);
  el("path", { d: outliers, class: "rug", stroke: m.colors.outlier }, dom.layers.rug);

  // the cluster's handle (a triangle under the rug) and x0's (a dotted line, a knob on top)
  const cx = sx(m.at);
  dom.clusterHandle.setAttribute("d", `M${cx},${base + 24}l-9,16h18z`);
  dom.clusterHandle.setAttribute("fill", m.k ? m.colors.outlier : "white");
  dom.clusterHandle.setAttribute("stroke", m.colors.outlier);
  dom.clusterHandle.setAttribute("aria-label", `the ${m.k} outliers placed, at ${m.at.toFixed(2)}`);
  const px0 = sx(m.x0);
  setPath(dom.layers.x0, `M${px0},${PLOT.top}V${base}`, { stroke: m.colors.point, class: "x0-line" });
  dom.x0Handle.setAttribute("cx", px0);
  dom.x0Handle.setAttribute("cy", PLOT.top + 8);
  dom.x0Handle.setAttribute("fill", m.colors.point);
  dom.x0Handle.setAttribute("aria-label", `the locked point x0 = ${m.x0.toFixed(2)}`);
  state.scaleX = { lo, hi, left: PLOT.left, right: width - PLOT.right };

  drawStrip(state, width);
  drawControls(state);
  drawLegend(state);
  dom.readout.textContent = readout(m, r);
}

function drawStrip(state, width) {
  const { m, r, dom } = state;
  const { values, near, median, mean } = r.strip;
  const height = STRIP.height;
  const base = height - STRIP.bottom;
  dom.strip.setAttribute("viewBox", `0 0 ${width} ${height}`);
  dom.strip.setAttribute("width", width);
  dom.strip.setAttribute("height", height);
  let top = Math.max(mean, median);
  for (const v of values) if (v > top) top = v;
  top = top || 1;
  const lo = -0.04 * top;
  const hi = 1.06 * top;
  const sx = (v) => STRIP.left + ((v - lo) / (hi - lo)) * (width - STRIP.left - STRIP.right);
  const mid = (STRIP.top + base) / 2;
  const spread = (base - STRIP.top) / 2 - 6;
  const g = dom.stripLayers.grid;
  g.replaceChildren();
  for (const t of niceTicks(0, hi, 6)) {
    el("line", { x1: sx(t), x2: sx(t), y1: base, y2: base + 5, class: "tick" }, g);
    el("text", { x: sx(t), y: base + 18, class: "tick-label", "text-anchor": "middle" }, g).textContent = fmt(t);
  }
  el("line", { x1: STRIP.left, x2: width - STRIP.right, y1: base, y2: base, class: "axis" }, g);
  el("text", { x: (STRIP.left + width - STRIP.right) / 2, y: base + 32, class: "axis-label", "text-anchor": "middle" }, g).textContent =
    "each block's KDE at x₀ (density)";
  const lines = dom.stripLayers.lines;
  lines.replaceChildren();
  el("path", { d: `M${sx(median)},${STRIP.top}V${base}`, stroke: m.colors.mom_kde, class: "strip-median" }, lines);
  el("path", { d: `M${sx(mean)},${STRIP.top}V${base}`, stroke: m.colors.kde, class: "strip-mean" }, lines);
  // a beeswarm: the dots of each of 80 slices of the range alternate above and below
  const bins = new Int32Array(80);
  let grey = "";
  let red = "";
  const radius = 4;
  for (let s = 0; s < values.length; s++) {
    const b = Math.min(79, Math.max(0, Math.floor(((values[s] - lo) / (hi - lo)) * 80)));
    const c = bins[b]++;
    const offset = (c % 2 ? -1 : 1) * Math.ceil(c / 2) * 2.2 * radius;
    const y = mid + Math.max(-spread, Math.min(spread, offset));
    const x = sx(values[s]);
    const dot = `M${(x - radius).toFixed(1)},${y.toFixed(1)}a${radius},${radius} 0 1,0 ${2 * radius},0a${radius},${radius} 0 1,0 ${-2 * radius},0`;
    if (near[s]) red += dot;
    else grey += dot;
  }
  const dots = dom.stripLayers.dots;
  dots.replaceChildren();
  el("path", { d: grey, fill: m.colors.block, class: "dots" }, dots);
  el("path", { d: red, fill: m.colors.outlier, class: "dots" }, dots);
}

function sOptions(m, S) {
  return m.sOptions.includes(S) ? m.sOptions : [...m.sOptions, S].sort((a, b) => a - b);
}

function drawControls(state) {
  const { m, r, dom } = state;
  const { k, h, s } = dom.sliders;
  Object.assign(k.input, { min: 0, max: m.kMax, step: 1 });
  k.input.value = m.k;
  k.out.textContent = `${m.k}`;
  const [hLow, hHigh, hStep] = m.hRange;
  Object.assign(h.input, { min: hLow, max: hHigh, step: hStep });
  h.input.value = m.h;
  h.out.textContent = m.hRule && !m.hManual ? `${fmt(m.h)} (${m.hRule}; a move sets it by hand)` : fmt(m.h);
  const options = sOptions(m, r.S);
  Object.assign(s.input, { min: 0, max: options.length - 1, step: 1 });
  s.input.value = options.indexOf(r.S);
  s.out.textContent = m.autoS ? `${r.S} (auto: 2⌈εn⌉+1, n = ${r.n})` : `${r.S}`;
}

function drawLegend(state) {
  const { m, dom } = state;
  const items = [
    ["MoM-KDE", m.colors.mom_kde, "line"],
    ["KDE", m.colors.kde, "line"],
    ["true density", m.colors.truth, "line"],
    ...(m.showBlocks ? [["the S block KDEs", m.colors.block, "line"]] : []),
    ...m.curves.map((c) => [`${c.label} (as of the last release)`, c.color, "line server"]),
    ["outliers", m.colors.outlier, "rug"],
  ];
  const key = items.map((i) => i[0]).join("|");
  if (dom.legend.dataset.key === key) return;
  dom.legend.dataset.key = key;
  dom.legend.replaceChildren();
  for (const [name, color, kind] of items) {
    const item = html("span", { class: "item" }, dom.legend);
    html("span", { class: `swatch ${kind}`, style: `background:${color}` }, item);
    html("span", {}, item, name);
  }
}

// What the figure shows, in words, from the numbers it drew.
function readout(m, r) {
  const { values, near, median, mean } = r.strip;
  const S = values.length;
  let red = 0;
  for (const v of near) red += v;
  const placed = m.k ? `${m.k} outliers placed at ${m.at.toFixed(2)}` : "no outliers placed";
  const both = `their median ${dens(median)}, their mean (the KDE) ${dens(mean)}`;
  let blocks;
  if (red === 0) {
    blocks = `no block of the ${S} holds an outlier within reach: ${both}, apart only by how the inliers fell into blocks`;
  } else if (2 * red >= S) {
    blocks = `${red} of the ${S} blocks hold an outlier within reach (red), at least half: the outliers can carry the median (${both})`;
  } else if (median < mean) {
    blocks = `${red} of the ${S} blocks hold an outlier within reach (red), fewer than half: ${both}, the median leaves out what the outliers add there`;
  } else {
    blocks = `${red} of the ${S} blocks hold an outlier within reach (red), fewer than half: ${both}`;
  }
  return (
    `${placed}; h = ${fmt(m.h)}, S = ${r.S}, n = ${r.n}. At x₀ = ${m.x0.toFixed(2)}, ${blocks}. ` +
    "Drag the red triangle (the outliers), the dark knob (x₀) or a slider: the curves follow; " +
    "RKDE, SPKDE, the metrics and the captions update when you let go."
  );
}

// ---------------------------------------------------------------- interaction

function publish(state) {
  const { r } = state;
  state.frame += 1;
  state.dom.box.setAttribute("data-frame", String(state.frame));
  state.dom.box.setAttribute("data-n", String(r.n));
  state.dom.box.setAttribute("data-s", String(r.S));
  window.__liveLesson = {
    frame: state.frame,
    latencies: state.latencies,
    model: { k: state.m.k, at: state.m.at, x0: state.m.x0, h: state.m.h, S: r.S, seed: state.m.seed },
    n: r.n,
    S: r.S,
    nodes: Array.from(r.nodes),
    mom: Array.from(r.mom),
    kde: Array.from(r.kde),
    integral: r.integral,
    normalisedAsLibrary: r.asLibrary,
    readout: state.dom.readout.textContent,
    blocks: (s) => Array.from(r.nodes, (_, j) => r.sums[s * r.nodes.length + j] * r.scale[s]),
    strip: {
      values: Array.from(r.strip.values),
      near: Array.from(r.strip.near),
      holds: Array.from(r.strip.holds),
      median: r.strip.median,
      mean: r.strip.mean,
    },
  };
}

function redraw(state, started) {
  state.r = compute(state.m, state.cache);
  draw(state);
  publish(state);
  if (started !== undefined) {
    state.latencies.push(performance.now() - started);
    if (state.latencies.length > MAX_LATENCIES) state.latencies.shift();
  }
}

function snap(value, [low, high, step]) {
  return Math.min(high, Math.max(low, Math.round(Math.round(value / step) * step * 100) / 100));
}

function release(state) {
  const m = state.m;
  state.dragging = null;
  state.dom.box.classList.remove("dragging");
  state.releases += 1;
  state.setTrigger("release", {
    k: m.k,
    at: m.at,
    x0: m.x0,
    h: m.hManual ? m.h : null,
    S: m.autoS ? null : m.S,
    seq: state.releases,
  });
}

function placeOf(state, clientX) {
  const rect = state.dom.plot.getBoundingClientRect();
  const { lo, hi, left, right } = state.scaleX;
  const px = ((clientX - rect.left) / rect.width) * Number(state.dom.plot.getAttribute("width"));
  return lo + ((px - left) / (right - left)) * (hi - lo);
}

// A handle's drag and keys. The moves and the release are heard on the window: the page may
// mount the figure again during a drag (its host element redrawn), and a pointer off the
// handle still drags it.
function bindHandle(state, handle, field) {
  handle.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    handle.focus();
    state.dragging = field;
    state.dom.box.classList.add("dragging");
  });
  handle.addEventListener("keydown", (e) => {
    const sign = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1 }[e.key];
    if (!sign) return;
    e.preventDefault();
    const step = state.m.place[2] * (e.shiftKey ? 10 : 1);
    state.m[field] = snap(state.m[field] + sign * step, state.m.place);
    state.keyMoved = true;
    redraw(state, e.timeStamp);
  });
  handle.addEventListener("keyup", (e) => {
    if (state.keyMoved && e.key.startsWith("Arrow")) {
      state.keyMoved = false;
      release(state);
    }
  });
}

function bindWindow(state) {
  window.addEventListener("pointermove", (e) => {
    if (state.dragging !== "at" && state.dragging !== "x0") return;
    state.m[state.dragging] = snap(placeOf(state, e.clientX), state.m.place);
    redraw(state, e.timeStamp);
  });
  const end = () => {
    if (state.dragging === "at" || state.dragging === "x0") release(state);
  };
  window.addEventListener("pointerup", end);
  window.addEventListener("pointercancel", end);
}

function bindSliders(state) {
  const { k, h, s } = state.dom.sliders;
  const move = (apply) => (e) => {
    state.dragging = "slider";
    apply(Number(e.target.value));
    redraw(state, e.timeStamp);
  };
  k.input.addEventListener("input", move((v) => (state.m.k = v)));
  h.input.addEventListener(
    "input",
    move((v) => {
      state.m.h = v;
      state.m.hManual = true;
    }),
  );
  s.input.addEventListener(
    "input",
    move((v) => {
      state.m.S = sOptions(state.m, state.r.S)[v];
      state.m.autoS = false;
    }),
  );
  for (const { input } of [k, h, s]) input.addEventListener("change", () => release(state));
}

function load(state, data) {
  state.m = { ...data, hManual: false };
  state.cache.axis = linspace(data.axis[0], data.axis[1], data.axis[2]);
  state.cache.view = null;
  state.cache.norm = null;
  redraw(state);
}

// The page's one live figure: its state outlives a new mount of the host element (the
// same drawing is moved into the new host, a drag goes on).
let STATE = null;

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (!STATE) {
    const root = document.createElement("div");
    const dom = build(root);
    STATE = { root, dom, cache: {}, frame: 0, latencies: [], releases: 0, dragging: null };
    bindHandle(STATE, dom.clusterHandle, "at");
    bindHandle(STATE, dom.x0Handle, "x0");
    bindSliders(STATE);
    bindWindow(STATE);
  }
  if (STATE.root.parentNode !== parentElement) parentElement.appendChild(STATE.root);
  STATE.setTrigger = setTriggerValue;
  // (data of a run from before the last release are stale: the release's run follows)
  if (data && !STATE.dragging && data.seq >= STATE.releases) load(STATE, data);
}
