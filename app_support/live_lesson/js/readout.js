// What the live figure shows, in words, from the numbers it drew: where the outliers are,
// and what the S blocks do at x0.

import { dens, fmt } from "./format.js";

function where(v) {
  return Array.isArray(v) ? `(${v.map((c) => c.toFixed(2)).join(", ")})` : v.toFixed(2);
}

export function blocksSentence(strip) {
  const { values, near, median, mean } = strip;
  const S = values.length;
  let red = 0;
  for (const v of near) red += v;
  const both = `their median ${dens(median)}, their mean (the KDE) ${dens(mean)}`;
  if (red === 0) {
    return `no block of the ${S} holds an outlier within reach: ${both}, apart only by how the inliers fell into blocks`;
  }
  if (2 * red >= S) {
    return `${red} of the ${S} blocks hold an outlier within reach (red), at least half: the outliers can carry the median (${both})`;
  }
  if (median < mean) {
    return `${red} of the ${S} blocks hold an outlier within reach (red), fewer than half: ${both}, the median leaves out what the outliers add there`;
  }
  return `${red} of the ${S} blocks hold an outlier within reach (red), fewer than half: ${both}`;
}

// The server's other fits the figure draws, as the words name them ("RKDE and SPKDE, ").
export function others(m) {
  const names = (m.curves || []).map((c) => c.label);
  if (!names.length) return "";
  return `${names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0]}, `;
}

export function readout(m, r) {
  const placed = m.k ? `${m.k} outliers placed at ${where(m.at)}` : "no outliers placed";
  const handles = Array.isArray(m.at)
    ? "Drag the red triangle (the outliers) or the ringed cross (x₀) on any map, or a slider: the KDE and MoM-KDE maps follow"
    : "Drag the red triangle (the outliers), the dark knob (x₀) or a slider: the curves follow";
  // where the library would estimate the median's integral by sampling (h small for the
  // rows' spread), the page sums it on a grid of capped size: say so
  const norm = r.asLibrary
    ? ""
    : " MoM-KDE is divided here by a Riemann sum of the median on a capped grid; the library, for this h and spread, estimates that integral by importance sampling, so the MoM-KDE drawn here and the library's differ by that estimate's error.";
  return (
    `${placed}; h = ${fmt(m.h)}, S = ${r.S}, n = ${r.n}. At x₀ = ${where(m.x0)}, ${blocksSentence(r.strip)}. ` +
    `${handles}; ${others(m)}the metrics and the captions below update when you let go.${norm}`
  );
}
