// Small SVG plots drawn from data alone (no library, no build step): intervals around a reference line, and
// histograms. The styles are the page's (.plot …): the stats page and the designer's lab share them.

import { escapeHtml } from "./api.js";

// One row per item: a point and its interval on a 0–1 axis, with a dashed line at `reference`.
// rows: [{label, value, lo, hi, title}] (value null: the label alone)
export function intervalPlot(rows, { label = "", reference = 0.5, width = 560 } = {}) {
  const rowH = 26;
  const left = 200;
  const h = 30 + rowH * rows.length;
  const x = (v) => left + v * (width - left - 20);
  let svg = `<svg viewBox="0 0 ${width} ${h}" role="img" aria-label="${escapeHtml(label)}">`;
  svg += `<line class="axis" x1="${x(0)}" y1="${h - 20}" x2="${x(1)}" y2="${h - 20}"/>`;
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    svg += `<text x="${x(tick)}" y="${h - 5}" text-anchor="middle">${Math.round(100 * tick)} %</text>`;
  }
  svg += `<line class="half" x1="${x(reference)}" y1="5" x2="${x(reference)}" y2="${h - 20}"/>`;
  rows.forEach((r, i) => {
    const y = 18 + i * rowH;
    svg += `<text x="5" y="${y + 4}">${escapeHtml(String(r.label).slice(0, 30))}</text>`;
    if (r.value === null || r.value === undefined) return;
    svg += `<line class="ci" x1="${x(r.lo)}" y1="${y}" x2="${x(r.hi)}" y2="${y}"/>`;
    svg += `<circle class="bar" cx="${x(r.value)}" cy="${y}" r="5"><title>${escapeHtml(r.title || "")}</title></circle>`;
  });
  return svg + "</svg>";
}

// A histogram: hist = {edges: [...], counts: [...]}; `caption` under it; `fmt` formats an edge.
export function histogramPlot(hist, { caption = "", label = "", fmt = String, width = 260, height = 110 } = {}) {
  const counts = hist.counts || [];
  const edges = hist.edges || [];
  const max = Math.max(1, ...counts);
  const bw = counts.length ? (width - 20) / counts.length : 0;
  let svg = `<svg viewBox="0 0 ${width} ${height + 30}" role="img" aria-label="${escapeHtml(label)}">`;
  counts.forEach((c, k) => {
    const bh = (height - 10) * (c / max);
    svg += `<rect class="bar" x="${10 + k * bw}" y="${height - bh}" width="${Math.max(1, bw - 2)}" height="${bh}"><title>${escapeHtml(`${fmt(edges[k])}–${fmt(edges[k + 1])}: ${c}`)}</title></rect>`;
  });
  if (edges.length) {
    svg += `<text x="10" y="${height + 14}">${escapeHtml(fmt(edges[0]))}</text><text x="${width - 10}" y="${height + 14}" text-anchor="end">${escapeHtml(fmt(edges[edges.length - 1]))}</text>`;
  }
  return `${svg}<text x="${width / 2}" y="${height + 28}" text-anchor="middle">${escapeHtml(String(caption).slice(0, 40))}</text></svg>`;
}

// Game strings in natural order: numbers compared as numbers, decimals included (size=4 before size=10,
// komi=1 before komi=1.5 before komi=2).
export function naturalCompare(a, b) {
  const split = (s) => String(s).split(/(\d+(?:\.\d+)?)/);
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    if (i % 2 === 1) return Number(x[i]) - Number(y[i]); // odd pieces are the numbers
    return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}
