// Small statistics and formatting helpers shared by the bench scripts (Node and Deno).
export function median(xs) {
  const a = xs.filter((x) => Number.isFinite(x)).sort((x, y) => x - y);
  if (a.length === 0) return NaN;
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
}
export const min = (xs) => Math.min(...xs.filter(Number.isFinite));
export const max = (xs) => Math.max(...xs.filter(Number.isFinite));
export function geomean(xs) {
  const a = xs.filter((x) => Number.isFinite(x) && x > 0);
  if (a.length === 0 || a.length !== xs.length) return NaN;
  return Math.exp(a.reduce((s, x) => s + Math.log(x), 0) / a.length);
}
export function fmtInt(x) {
  return Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–';
}
export function fmt(x, digits = 2) {
  return Number.isFinite(x) ? x.toFixed(digits) : '–';
}
/** Markdown table: header row, alignment (first column left, the rest right), rows. */
export function mdTable(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}
