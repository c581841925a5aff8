// Numbers as the figure writes them: tick values, densities, nice ticks.

export function fmt(v) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e4 ? Number(v.toPrecision(3)).toString() : v.toExponential(2);
}

// A density as the server's captions write it (app_support.captions.median.density): "≈ 0"
// below 1e-4, where a Gaussian kernel's far tail (1e-56, say) is noise, not a value.
export function dens(v) {
  return v < 1e-4 ? "≈ 0" : fmt(v);
}

// About ``target`` ticks at 1, 2 or 5 times a power of ten between lo and hi.
export function niceTicks(lo, hi, target) {
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

// A value snapped to the controls' step and kept in their range [low, high].
export function snap(value, [low, high, step]) {
  return Math.min(high, Math.max(low, Math.round(Math.round(value / step) * step * 100) / 100));
}
