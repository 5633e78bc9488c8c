/**
 * Shape checks for what the file store reads back. Its directory is shared: a profile or an index line
 * there may come from another version of the app or a hand edit, and the profiler pages, the toolbar
 * and the search take every field they read as present and of its type. So what the store hands out is
 * checked here first; anything else reads as absent ("Token not found", a skipped index line), never
 * as a 500. Only the fields something reads are checked, with the types those readers rely on.
 */
import { isToken, type Profile, type ProfileSummary } from '../profile.ts';

type Check = (value: unknown) => boolean;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const anything: Check = () => true;
const string: Check = (v) => typeof v === 'string';
const number: Check = (v) => typeof v === 'number';
const byteSize: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 0;
const orNull = (check: Check): Check => (v) => v === null || check(v);
const optional = (check: Check): Check => (v) => v === undefined || check(v);
const record: Check = isRecord;
const recordOf = (check: Check): Check => (v) => isRecord(v) && Object.values(v).every(check);
const arrayOf = (check: Check): Check => (v) => Array.isArray(v) && v.every(check);

function shape(fields: Record<string, Check>): Check {
  const entries = Object.entries(fields);
  return (v) => isRecord(v) && entries.every(([key, check]) => check(Object.hasOwn(v, key) ? v[key] : undefined));
}

/** JSON writes NaN and Infinity as null: a timing may be null in a genuine profile. */
const time = orNull(number);

const cookie = shape({ name: anything, value: anything, attributes: anything });

const request = shape({
  pathInfo: string,
  realMethod: string,
  scheme: string,
  host: string,
  locale: orNull(string),
  format: orNull(string),
  query: record,
  body: record,
  attributes: record,
  // The exception page replays them as a request's headers.
  headers: recordOf(string),
  cookies: arrayOf(cookie),
  contentType: orNull(string),
  content: orNull(string),
  contentLength: time,
});

const response = shape({ headers: record, cookies: arrayOf(cookie), contentType: anything });
const session = orNull(shape({ id: anything, started: anything, attributes: record }));
const security = shape({ token: anything, memberId: anything, firewall: anything, authenticated: anything, roles: optional(arrayOf(string)), inheritedRoles: optional(arrayOf(string)), decisions: optional(arrayOf(shape({ attributes: arrayOf(string), subject: string, granted: (v) => typeof v === 'boolean' }))), decisionsDropped: optional(byteSize), authenticatedBy: optional(orNull(string)) });
const routing = shape({ route: orNull(string), params: orNull(record), controller: orNull(string), redirect: anything });
const listenerCall = shape({ hook: string, listener: string, role: string, startMs: number, durationMs: number });
const notCalled = shape({ hook: string, listener: string, role: string });
const logRecord = shape({ datetime: string, level: number, level_name: string, channel: string, message: string, context: anything });

const exceptionEntry = shape({ class: string, message: string, status: number, file: string, line: number, stack: string });
/** The views read at most this many entries of a chain; deeper ones are never looked at. */
const CHAIN_READ = 33;

function exceptionChain(value: unknown): boolean {
  let e = value;
  for (let depth = 0; e !== null && depth < CHAIN_READ; depth++) {
    if (!exceptionEntry(e)) return false;
    e = (e as { previous?: unknown }).previous ?? null;
  }
  return true;
}

const profile = shape({
  token: isToken,
  parent: optional(orNull(string)),
  time: number,
  ip: string,
  method: string,
  url: string,
  status: number,
  statusText: string,
  route: orNull(string),
  controller: orNull(string),
  durationMs: time,
  totalMs: time,
  memory: time,
  request,
  response,
  session,
  security,
  routing,
  events: arrayOf(listenerCall),
  notCalledListeners: arrayOf(notCalled),
  logs: arrayOf(logRecord),
  exception: exceptionChain,
  collectors: record,
  truncated: arrayOf(string),
});

const summary = shape({
  token: isToken,
  ip: string,
  method: string,
  url: string,
  time: number,
  status: number,
  parent: optional(orNull(string)),
  // Summed for the byte bound: a size a file can have. A line claiming 1e999 (Infinity) or a size past
  // 2^53 swallowed the other sizes in the sum, and every older profile was evicted with it; a negative
  // one switched the byte bound off for as long as it was indexed.
  bytes: optional(byteSize),
});

/**
 * How deep a stored profile may nest. A collected one stays far below: its values are cut at depth 8
 * (mask.ts) and its exception chain at 32 (exceptionChain). A file nested thousands deep parses, but
 * every JSON.stringify of it overflows the stack: its JSON answer, its Security panel and the toolbar
 * answered 500.
 */
const MAX_NESTING = 128;

/** Whether no array or object in `value` lies deeper than `max` (iterative: the depth is the input). */
function nestsWithin(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [v, depth] = pending.pop()!;
    if (depth > max) return false;
    const children = Array.isArray(v) ? v : isRecord(v) ? Object.values(v) : [];
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return true;
}

export function isProfile(value: unknown): value is Profile {
  return profile(value) && nestsWithin(value, MAX_NESTING);
}

export function isProfileSummary(value: unknown): value is ProfileSummary {
  return summary(value);
}
