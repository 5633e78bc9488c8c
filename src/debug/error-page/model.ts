/**
 * What the debug error page shows, as plain data: the exception chain with resolved frames and code
 * excerpts, the request's log records, the request line. Built once per error; the templates only
 * format it. Plain data, so a profiler can keep it and render the same page later.
 */
import type { KernelRequest } from '../../http/request.ts';
import { statusText } from '../../http/status.ts';
import { classNameOf, exceptionChain, HttpException, NonErrorThrown, statusOf } from '../../kernel/exceptions.ts';
import { LEVELS } from '../../log/levels.ts';
import { interpolate, type LogRecord } from '../../log/record.ts';
import { errorFrames, frameExcerpt, throwSite, type ResolvedFrame } from '../stack.ts';
import type { ExcerptLine } from './excerpt.ts';
import { relativeTo, workingDirectory } from './host-fs.ts';
import { isoString } from './iso-date.ts';
import { describeValue, messageOf, prettyJson } from './safe-json.ts';
import { maskForDisplay, scrubText } from '../profiler/mask.ts';

export interface FrameView {
  fn: string;
  /** Absolute file (or URL / `node:` id). */
  file: string;
  /** Relative to the project root when inside it. */
  path: string;
  line: number;
  column: number;
  vendor: boolean;
  /** `dist/index.js:120:7` when the frame was mapped through a source map by the page itself. */
  generated: string | null;
  /** Code around the line, for application frames whose source is readable. */
  excerpt: ExcerptLine[] | null;
}

export interface ExceptionView {
  class: string;
  message: string;
  frames: FrameView[];
  /** Own properties worth seeing (`code`, `errno`, `statusCode`, ...) as pretty JSON, or null. */
  properties: string | null;
  /** For a thrown non-Error: its type and value. */
  thrown: { type: string; json: string } | null;
  /** AggregateError members. */
  errors: { class: string; message: string }[];
}

export interface LogView {
  level: number;
  levelName: string;
  channel: string;
  /** ISO date-time. */
  datetime: string;
  /** Placeholders filled. */
  message: string;
  /** Pretty JSON, or null for an empty context. */
  context: string | null;
}

export interface ErrorPageModel {
  status: number;
  statusText: string;
  /** Outermost first. */
  chain: ExceptionView[];
  logs: LogView[];
  /** Records the request logged beyond the per-request bound. */
  droppedLogs: number;
  request: { method: string; path: string; route: string | null; controller: string | null } | null;
}

/**
 * Application frames with a code excerpt, per exception: the top ones, where the error happened. The
 * callers further down are the host's entry (adapter, test runner); their code is rarely of interest,
 * and leaving it out bounds the page's size.
 */
const EXCERPTS_PER_EXCEPTION = 5;
const HIDDEN_PROPERTIES = new Set(['message', 'stack', 'cause', 'previous', 'value', 'name', 'errors']);

/** Safe reads of an error's fields: a hostile getter must not break the page. */
export { messageOf };

export function safeClassName(error: unknown): string {
  try {
    return classNameOf(error);
  } catch {
    return 'Error';
  }
}

function frameView(frame: ResolvedFrame, withExcerpt: boolean): FrameView {
  return {
    fn: frame.fn,
    file: frame.file,
    path: frame.path,
    line: frame.line,
    column: frame.column,
    vendor: frame.vendor,
    generated: frame.generated ? `${relativeTo(workingDirectory(), frame.generated.file)}:${frame.generated.line}:${frame.generated.column}` : null,
    excerpt: withExcerpt ? frameExcerpt(frame) : null,
  };
}

function propertiesOf(error: Error): string | null {
  let keys: string[];
  try {
    keys = Object.keys(error).filter((k) => !HIDDEN_PROPERTIES.has(k));
  } catch {
    return null;
  }
  const picked: Record<string, unknown> = {};
  let count = 0;
  for (const k of keys.slice(0, 50)) {
    // The status is the page's HTTP line already.
    if (k === 'statusCode' && error instanceof HttpException) continue;
    try {
      const value = (error as unknown as Record<string, unknown>)[k];
      if (isEmptyContainer(value)) continue;
      picked[k] = value;
    } catch (e) {
      picked[k] = `[unreadable: ${messageOf(e)}]`;
    }
    count++;
  }
  if (count === 0) return null;
  return prettyJson(maskForDisplay(picked), 10_000, { describeError: describeErrorShort });
}

function isEmptyContainer(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return Object.keys(value).length === 0;
  return false;
}

/** Frame views (with their excerpts) by frames array: errorFrames shares one per throw site. */
const frameViews = new WeakMap<readonly ResolvedFrame[], FrameView[]>();

/** The views of an exception's frames; shared between errors thrown from the same place (read-only). */
function frameViewsOf(frames: readonly ResolvedFrame[]): FrameView[] {
  let views = frameViews.get(frames);
  if (views === undefined) {
    let excerpts = 0;
    views = frames.map((f) => frameView(f, !f.vendor && excerpts++ < EXCERPTS_PER_EXCEPTION));
    frameViews.set(frames, views);
  }
  return views;
}

export function exceptionView(error: Error): ExceptionView {
  const views = frameViewsOf(errorFrames(error));
  let thrown: ExceptionView['thrown'] = null;
  if (error instanceof NonErrorThrown) {
    const v = error.value;
    thrown = { type: v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v, json: prettyJson(v, 10_000, { describeError: describeErrorShort }) };
  }
  const errors: ExceptionView['errors'] = [];
  try {
    if (typeof AggregateError !== 'undefined' && error instanceof AggregateError && Array.isArray(error.errors)) {
      for (const e of error.errors.slice(0, 20)) errors.push({ class: safeClassName(e), message: e instanceof Error ? messageOf(e) : describeValue(e) });
    }
  } catch {
    // ignore unreadable members
  }
  return { class: safeClassName(error), message: messageOf(error), frames: views, properties: propertiesOf(error), thrown, errors };
}

/** Monolog's rendering of an exception inside a log context, with the source-mapped location; its message scrubbed as the log stream's is. */
export function describeErrorShort(error: Error): string {
  let where = '';
  try {
    const site = throwSite(error);
    if (site) where = ` at ${site.path}:${site.line}`;
  } catch {
    // no location
  }
  return `[object] (${safeClassName(error)}(code: 0): ${scrubText(messageOf(error))}${where})`;
}

/** A record's context masked for the page, once per record: its message and its context both show it. */
const shownContexts = new WeakMap<LogRecord, Record<string, unknown>>();

function shownContext(record: LogRecord): Record<string, unknown> {
  let shown = shownContexts.get(record);
  if (shown === undefined) {
    shown = maskForDisplay(record.context) as Record<string, unknown>;
    shownContexts.set(record, shown);
  }
  return shown;
}

/**
 * Records whose message is interpolated already: those a page rebuilt from a stored profile replays
 * (src/debug/profiler/routes.ts). Filling their placeholders again made a client's `{user}`, kept as
 * text in the stored message, show the context's `user` on the rebuilt page and nowhere else.
 */
const interpolatedRecords = new WeakSet<LogRecord>();

export function markInterpolated(record: LogRecord): void {
  interpolatedRecords.add(record);
}

export function logView(record: LogRecord): LogView {
  let message: string;
  try {
    // Scrubbed whole, as the log stream writes it: the literal text may quote an error's URL or credentials.
    message = scrubText(interpolatedRecords.has(record) ? record.message : interpolate(record.message, shownContext(record)));
  } catch {
    message = scrubText(typeof record.message === 'string' ? record.message : describeValue(record.message));
  }
  let context: string | null = null;
  try {
    const ctx = record.context;
    if (ctx && typeof ctx === 'object' && Object.keys(ctx).length > 0) context = prettyJson(shownContext(record), 20_000, { describeError: describeErrorShort });
  } catch (e) {
    context = `"[unreadable context: ${messageOf(e)}]"`;
  }
  let datetime = '';
  try {
    datetime = isoString(record.datetime);
  } catch {
    // invalid date
  }
  const levelName = String(record.levelName ?? '').toUpperCase() || 'LOG';
  const level = typeof record.level === 'number' ? record.level : (LEVELS as Record<string, number>)[levelName.toLowerCase()] ?? 0;
  return { level, levelName, channel: String(record.channel ?? ''), datetime, message, context };
}

function requestView(request: KernelRequest): ErrorPageModel['request'] {
  let method = '';
  try {
    method = request.method;
  } catch {
    try {
      method = request.realMethod;
    } catch {
      method = '';
    }
  }
  let path = '';
  try {
    path = request.pathInfo;
  } catch {
    path = '';
  }
  let route: string | null = null;
  let controller: string | null = null;
  try {
    const r = request.attributes.get('_route');
    route = typeof r === 'string' ? r : null;
    const c = request.attributes.get('_controller');
    controller = typeof c === 'function' ? c.name || 'anonymous controller' : null;
  } catch {
    // attributes unreadable
  }
  return { method, path, route, controller };
}

export function buildErrorPageModel(error: Error, request: KernelRequest | null): ErrorPageModel {
  const status = statusOf(error);
  let errors: Error[];
  try {
    errors = exceptionChain(error);
  } catch {
    errors = [error];
  }
  const chain = errors.map(exceptionView);
  let logs: LogView[] = [];
  let dropped = 0;
  if (request) {
    const records = request.logRecords;
    logs = records.map(logView);
    try {
      dropped = request.logger.droppedRecords;
    } catch {
      dropped = 0;
    }
  }
  return { status, statusText: statusText(status), chain, logs, droppedLogs: dropped, request: request ? requestView(request) : null };
}
