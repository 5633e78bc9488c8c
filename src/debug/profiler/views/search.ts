/** The search form and the results list (newest first). */
import type { ProfileSummary } from '../profile.ts';
import type { SearchCriteria } from '../storage.ts';
import { dateText, esc, safeHref, statusTone } from './common.ts';
import type { ProfilerUrls } from './layout.ts';

/** Criteria as they appear in a query string (what the form sends, what the links carry). */
export interface CriteriaFields {
  ip?: string;
  method?: string;
  status?: string;
  url?: string;
  start?: string;
  end?: string;
  limit?: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const LIMITS = ['10', '50', '100', '500'];

/**
 * The choices of a select with the current value among them: a value the list does not offer
 * (`method=PURGE`, `limit=3`, or the "Last 10" link's limit on a list without it) is added as an
 * option of its own, so submitting the form again keeps the search it shows instead of falling back
 * to the first choice.
 */
function withCurrent(choices: readonly string[], current: string | undefined): readonly string[] {
  if (current === undefined || current === '' || choices.includes(current)) return choices;
  const out = [...choices];
  const n = Number(current);
  // Numbers stay in order (limit); other values go last.
  const at = Number.isFinite(n) ? out.findIndex((c) => Number(c) > n) : -1;
  out.splice(at < 0 ? out.length : at, 0, current);
  return out;
}

function text(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const t = value.trim();
  return t === '' ? undefined : cut(t, max);
}

/**
 * At most `max` UTF-16 units, never half of a surrogate pair: a lone surrogate has no UTF-8 form, so
 * the search's redirect to its results could not percent-encode the value (URIError, a 500 for
 * `?ip=a😀😀…`). Symfony keeps the value whole (ProfilerController::searchAction).
 */
function cut(t: string, max: number): string {
  if (t.length <= max) return t;
  const last = t.charCodeAt(max - 1);
  return t.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * Parses a date filter: unix seconds, or anything Date.parse understands. Every integer is unix
 * seconds, as Profiler::getTimestamp reads a numeric value (`'@'.$value`): Date.parse takes a short
 * one for a month or a year (`start=32` was 2032, `end=99999` the year 99999, `start=1000` the year
 * 1000), so a search by a small or large timestamp listed nothing, or everything.
 */
function time(value: string | undefined, endOfDay: boolean): number | undefined {
  if (!value) return undefined;
  if (/^-?\d+$/.test(value)) return Number.isSafeInteger(Number(value)) ? Number(value) : undefined;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${endOfDay ? '23:59:59' : '00:00:00'}Z` : value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** Query parameters → store criteria and the fields to echo back. Invalid values are ignored. */
export function readCriteria(query: Record<string, unknown>): { criteria: SearchCriteria; fields: CriteriaFields } {
  const fields: CriteriaFields = {};
  const criteria: SearchCriteria = {};
  const ip = text(query.ip, 64);
  if (ip) criteria.ip = fields.ip = ip;
  const method = text(query.method, 16)?.toUpperCase();
  if (method && /^[A-Z]+$/.test(method)) criteria.method = fields.method = method;
  // One character past a status: `4041` must fail the pattern, not be cut to 404.
  const status = text(query.status ?? query.status_code, 4);
  if (status && /^[1-5]\d\d$/.test(status)) {
    criteria.status = Number(status);
    fields.status = status;
  }
  const url = text(query.url, 500);
  if (url) criteria.url = fields.url = url;
  const start = text(query.start, 40);
  const startTime = time(start, false);
  if (startTime !== undefined) {
    criteria.start = startTime;
    fields.start = start;
  }
  const end = text(query.end, 40);
  const endTime = time(end, true);
  if (endTime !== undefined) {
    criteria.end = endTime;
    fields.end = end;
  }
  const limit = text(query.limit, 5);
  criteria.limit = 50;
  if (limit && /^\d+$/.test(limit) && Number(limit) >= 1) {
    criteria.limit = Math.min(1000, Number(limit));
    fields.limit = String(criteria.limit);
  }
  return { criteria, fields };
}

export function renderSearchForm(urls: ProfilerUrls, fields: CriteriaFields): string {
  const input = (name: keyof CriteriaFields, label: string, placeholder: string, type = 'text') =>
    `<label>${esc(label)}<input type="${type}" name="${name}" value="${esc(fields[name] ?? '')}" placeholder="${esc(placeholder)}" /></label>`;
  const methods = ['', ...withCurrent(METHODS, fields.method)].map((m) => `<option value="${esc(m)}"${m === (fields.method ?? '') ? ' selected' : ''}>${esc(m) || 'any'}</option>`).join('');
  const limit = fields.limit ?? '50';
  const limits = withCurrent(LIMITS, limit).map((l) => `<option${l === limit ? ' selected' : ''}>${esc(l)}</option>`).join('');
  return `<form class="pf-filters" id="pf-search" method="get" action="${esc(urls.search())}">
${input('ip', 'IP', '127.0.0.1')}
<label>Method<select name="method">${methods}</select></label>
${input('status', 'Status', '404')}
${input('url', 'URL contains', '/login')}
${input('start', 'From', 'YYYY-MM-DD or unix time')}
${input('end', 'Until', 'YYYY-MM-DD or unix time')}
<label>Results<select name="limit">${limits}</select></label>
<button class="pf-btn" type="submit">Search</button>
</form>`;
}

export function renderResults(urls: ProfilerUrls, results: ProfileSummary[], fields: CriteriaFields): string {
  const criteriaText = Object.entries(fields)
    .filter(([k]) => k !== 'limit')
    .map(([k, v]) => `${k} = "${v}"`)
    .join(', ');
  const heading = `<h2>${results.length} result${results.length === 1 ? '' : 's'} found${criteriaText ? ` for ${esc(criteriaText)}` : ''}</h2>`;
  if (results.length === 0) return `${heading}${renderSearchForm(urls, fields)}<p class="pf-empty">No profiles match. The profiler's own pages are never profiled.</p>`;
  const rows = results
    .map((s) => {
      const tone = statusTone(s.status);
      const href = safeHref(s.url);
      return `<tr data-token="${esc(s.token)}"><td><span class="pf-badge pf-badge-${tone}">${esc(s.status)}</span></td><td><a href="${esc(urls.results('empty', { ip: s.ip, limit: fields.limit }))}">${esc(s.ip)}</a></td><td>${esc(s.method)}</td><td class="pf-url">${href ? `<a href="${esc(href)}" rel="noreferrer">${esc(s.url)}</a>` : esc(s.url)}</td><td>${esc(dateText(s.time))}</td><td><a class="pf-mono" href="${esc(urls.profile(s.token))}">${esc(s.token)}</a></td></tr>`;
    })
    .join('');
  return `${heading}${renderSearchForm(urls, fields)}
<table class="pf-search-table"><thead><tr><th>Status</th><th>IP</th><th>Method</th><th>URL</th><th>Time</th><th>Token</th></tr></thead><tbody>${rows}</tbody></table>`;
}
