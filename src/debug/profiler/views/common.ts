/** Small HTML helpers shared by the profiler pages and the toolbar. Every value goes through `esc`. */
import { escapeHtml } from '../../error-page/escape.ts';
import { LEVELS } from '../../../log/levels.ts';

export const esc = (value: unknown): string => escapeHtml(value === null || value === undefined ? '' : String(value));

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function formatBytes(bytes: number | null): string {
  if (bytes === null || !Number.isFinite(bytes)) return 'n/a';
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

export type StatusTone = 'success' | 'warning' | 'error';

/** Symfony's summary colours: > 399 error, > 299 warning, else success. */
export function statusTone(status: number): StatusTone {
  return status > 399 ? 'error' : status > 299 ? 'warning' : 'success';
}

/** The badges of the toolbar and the profile's Logs menu: records at ERROR and above, and WARNING records. */
export function logCounts(logs: readonly { level: number }[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const record of logs) {
    if (record.level >= LEVELS.error) errors++;
    else if (record.level >= LEVELS.warning) warnings++;
  }
  return { errors, warnings };
}

export function dateText(timeSeconds: number): string {
  const d = new Date(timeSeconds * 1000);
  return Number.isNaN(d.getTime()) ? '' : d.toUTCString();
}

/** Pretty JSON of an already-sanitized value, escaped. */
export function jsonBlock(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? 'null';
  } catch {
    text = String(value);
  }
  return `<pre class="pf-json">${esc(text)}</pre>`;
}

function cell(value: unknown): string {
  if (typeof value === 'string') return `<span class="pf-str">${esc(value)}</span>`;
  if (value === null || value === undefined) return '<span class="pf-null">null</span>';
  if (typeof value === 'number' || typeof value === 'boolean') return `<span class="pf-scalar">${esc(value)}</span>`;
  return jsonBlock(value);
}

/** A two-column table of a record; `empty` when it has no entries. */
export function kvTable(record: Record<string, unknown> | null | undefined, empty: string, caption?: string): string {
  const entries = record ? Object.entries(record) : [];
  const title = caption ? `<h3>${esc(caption)}</h3>` : '';
  if (entries.length === 0) return `${title}<p class="pf-empty">${esc(empty)}</p>`;
  const rows = entries.map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${cell(v)}</td></tr>`).join('');
  return `${title}<table class="pf-kv"><thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** A query string from criteria, empty values left out. */
export function queryString(params: Record<string, string | number | undefined | null>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Only http(s) URLs become links (a recorded URL is client input). */
export function safeHref(url: string): string | null {
  return /^https?:\/\/[^\s]/i.test(url) || /^\/(?![\/\\])/.test(url) ? url : null;
}
