/**
 * A profile's head and tail as `JSON.stringify` writes them, for less.
 *
 * JSON.stringify costs about 50 ns per property here, and most of a profile (the request's data,
 * session, security, routing, log records, the exception) is the same as in the profile before it.
 * Those parts are compared with the last ones written (a walk over plain data, no string building)
 * and their JSON reused when equal.
 *
 * The remembered parts are the masked, bounded copies a profile is built from (never the request's
 * own objects), and nothing may change them afterwards: whoever edits a head or tail that went
 * through here calls `forgetProfileJson()` first.
 */
import type { ProfiledLogRecord } from './profile.ts';
import type { ProfileHead, ProfileTail } from './stored.ts';

/** Characters JSON.stringify escapes (lone surrogates included: any surrogate takes the slow path). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Thrown when JSON.stringify would leave a key out (an undefined value): the caller serializes as a whole. */
const OMITTED = new Error('omitted value');

function isPlainObject(value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
}

/** JSON being written. */
class Writer {
  text = '';

  raw(s: string): void {
    this.text += s;
  }

  string(s: string): void {
    this.text += NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
  }

  /** `"name":` and the value, after a comma unless it is the object's first property. */
  field(name: string, value: unknown, first = false): void {
    this.text += first ? `"${name}":` : `,"${name}":`;
    this.value(value);
  }

  /** `JSON.stringify(v)` as an object property's value. */
  value(v: unknown): void {
    switch (typeof v) {
      case 'string':
        return this.string(v);
      case 'number':
        return this.raw(Number.isFinite(v) ? String(v) : 'null');
      case 'boolean':
        return this.raw(v ? 'true' : 'false');
      case 'object':
        if (v === null) return this.raw('null');
        if (isPlainArray(v) && v.length === 0) return this.raw('[]');
    }
    const text = JSON.stringify(v) as string | undefined;
    if (text === undefined) throw OMITTED;
    this.text += text;
  }
}

function valueJson(v: unknown): string {
  const w = new Writer();
  w.value(v);
  return w.text;
}

const MAX_COMPARED_DEPTH = 32;

/** Whether two values of plain data (plain objects, arrays, primitives) have the same JSON. False when unsure. */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > MAX_COMPARED_DEPTH) return false;
  if (Array.isArray(a) || Array.isArray(b)) return isPlainArray(a) && isPlainArray(b) && sameItems(a, b, depth);
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i]!;
    if (key !== keysB[i] || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function sameItems(a: readonly unknown[], b: readonly unknown[], depth: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
  return true;
}

/** The last value of one part of the profile and its JSON, reused while `same` says the JSON would not change. */
class JsonMemo<T> {
  private value: T | undefined = undefined;
  private last: string | null = null;

  constructor(private readonly same: (a: T, b: T) => boolean = sameJson) {}

  json(value: T): string {
    if (this.last !== null && this.same(this.value as T, value)) return this.last;
    this.last = null;
    const json = valueJson(value);
    this.value = value;
    this.last = json;
    return json;
  }

  forget(): void {
    this.value = undefined;
    this.last = null;
  }
}

type RequestPart = ProfileHead['request'];
type SessionPart = ProfileHead['session'];
type SecurityPart = ProfileHead['security'];
type RoutingPart = ProfileHead['routing'];

/**
 * The keys of the parts compared field by field below (build() creates them with these keys; a test
 * holds both to the same list, so a new field cannot be left out of a comparison).
 */
export const COMPARED_FIELDS = {
  request: ['pathInfo', 'realMethod', 'scheme', 'host', 'locale', 'format', 'isXmlHttpRequest', 'query', 'body', 'attributes', 'headers', 'cookies', 'contentType', 'content', 'contentLength', 'contentTruncated'],
  session: ['id', 'started', 'attributes'],
  security: ['token', 'memberId', 'firewall', 'authenticated', 'roles', 'inheritedRoles', 'decisions', 'decisionsDropped', 'authenticatedBy'],
  routing: ['route', 'params', 'controller', 'redirect'],
} as const;

/** Field by field: cheaper than walking the part's keys, and most fields are strings. */
function sameRequest(a: RequestPart, b: RequestPart): boolean {
  return (
    isPlainObject(a) &&
    isPlainObject(b) &&
    a.pathInfo === b.pathInfo &&
    a.realMethod === b.realMethod &&
    a.scheme === b.scheme &&
    a.host === b.host &&
    a.locale === b.locale &&
    a.format === b.format &&
    a.isXmlHttpRequest === b.isXmlHttpRequest &&
    a.contentType === b.contentType &&
    a.content === b.content &&
    a.contentLength === b.contentLength &&
    a.contentTruncated === b.contentTruncated &&
    sameJson(a.query, b.query) &&
    sameJson(a.body, b.body) &&
    sameJson(a.headers, b.headers) &&
    sameJson(a.cookies, b.cookies) &&
    sameJson(a.attributes, b.attributes)
  );
}

function sameSession(a: SessionPart, b: SessionPart): boolean {
  if (a === null || b === null) return a === b;
  return isPlainObject(a) && isPlainObject(b) && a.id === b.id && a.started === b.started && sameJson(a.attributes, b.attributes);
}

function sameSecurity(a: SecurityPart, b: SecurityPart): boolean {
  return isPlainObject(a) && isPlainObject(b) && a.firewall === b.firewall && a.authenticated === b.authenticated && a.authenticatedBy === b.authenticatedBy && sameJson(a.roles, b.roles) && sameJson(a.inheritedRoles, b.inheritedRoles) && sameJson(a.decisions, b.decisions) && a.decisionsDropped === b.decisionsDropped && sameJson(a.token, b.token) && sameJson(a.memberId, b.memberId);
}

function sameRouting(a: RoutingPart, b: RoutingPart): boolean {
  return isPlainObject(a) && isPlainObject(b) && a.route === b.route && a.controller === b.controller && sameJson(a.params, b.params) && sameJson(a.redirect, b.redirect);
}

/** A log record's JSON after its datetime: `"level":…,"context":…}`. */
class LogRecordMemo {
  private record: ProfiledLogRecord | null = null;
  private rest: string | null = null;

  write(w: Writer, r: ProfiledLogRecord): void {
    w.raw('{"datetime":');
    w.string(r.datetime);
    w.raw(',');
    w.raw(this.restOf(r));
  }

  private restOf(r: ProfiledLogRecord): string {
    const last = this.record;
    if (last !== null && last.level === r.level && last.level_name === r.level_name && last.channel === r.channel && last.message === r.message && sameJson(last.context, r.context)) {
      return this.rest!;
    }
    this.record = null;
    const prefix = new Writer();
    prefix.raw('{"datetime":');
    prefix.string(r.datetime);
    prefix.raw(',');
    const json = JSON.stringify(r) as string | undefined;
    if (json === undefined || !json.startsWith(prefix.text)) throw OMITTED;
    this.rest = json.slice(prefix.text.length);
    this.record = r;
    return this.rest;
  }

  forget(): void {
    this.record = null;
    this.rest = null;
  }
}

/**
 * A record of strings (headers) entry by entry: `"name":"value"` is kept per position and reused while
 * the name and value are the same (most headers repeat; the debug token ones do not).
 */
class StringRecordMemo {
  private names: string[] = [];
  private values: string[] = [];
  private entries: string[] = [];

  write(w: Writer, record: unknown): void {
    if (!isPlainObject(record)) return w.value(record);
    const keys = Object.keys(record);
    if (keys.length > MAX_RECORD_ENTRIES || !keys.every((k) => typeof (record as Record<string, unknown>)[k] === 'string')) return w.value(record);
    w.raw('{');
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) w.raw(',');
      w.raw(this.entry(i, keys[i]!, (record as Record<string, string>)[keys[i]!]!));
    }
    w.raw('}');
  }

  private entry(i: number, name: string, value: string): string {
    if (this.names[i] === name && this.values[i] === value) return this.entries[i]!;
    const w = new Writer();
    w.string(name);
    w.raw(':');
    w.string(value);
    this.entries[i] = w.text;
    this.names[i] = name;
    this.values[i] = value;
    return this.entries[i]!;
  }

  forget(): void {
    this.names = [];
    this.values = [];
    this.entries = [];
  }
}

const MAX_RECORD_ENTRIES = 64;

type Identity = Pick<ProfileHead, 'ip' | 'method' | 'url' | 'status' | 'statusText' | 'route' | 'controller'>;

/** `"ip":…,"controller":…` of a head: the same for every request to a route from one client. */
class IdentityMemo {
  private last: Identity | null = null;
  private json: string | null = null;

  write(w: Writer, head: Identity): void {
    const last = this.last;
    const same =
      last !== null &&
      last.ip === head.ip &&
      last.method === head.method &&
      last.url === head.url &&
      last.status === head.status &&
      last.statusText === head.statusText &&
      last.route === head.route &&
      last.controller === head.controller;
    if (!same) this.remember(head);
    w.raw(this.json!);
  }

  private remember(head: Identity): void {
    this.last = null;
    const w = new Writer();
    w.field('ip', head.ip, true);
    w.field('method', head.method);
    w.field('url', head.url);
    w.field('status', head.status);
    w.field('statusText', head.statusText);
    w.field('route', head.route);
    w.field('controller', head.controller);
    this.json = w.text;
    const { ip, method, url, status, statusText, route, controller } = head;
    this.last = { ip, method, url, status, statusText, route, controller };
  }

  forget(): void {
    this.last = null;
    this.json = null;
  }
}

const identityMemo = new IdentityMemo();
const requestMemo = new JsonMemo(sameRequest);
const responseHeadersMemo = new StringRecordMemo();
const responseCookiesMemo = new JsonMemo<unknown>();
const sessionMemo = new JsonMemo(sameSession);
const securityMemo = new JsonMemo(sameSecurity);
const routingMemo = new JsonMemo(sameRouting);
const exceptionMemo = new JsonMemo<unknown>();
const collectorsMemo = new JsonMemo<unknown>();
/** Log records by position: a route logs the same lines in the same order. */
const LOG_MEMOS = 32;
const logMemos: LogRecordMemo[] = Array.from({ length: LOG_MEMOS }, () => new LogRecordMemo());
const ALL_MEMOS: { forget(): void }[] = [identityMemo, requestMemo, responseHeadersMemo, responseCookiesMemo, sessionMemo, securityMemo, routingMemo, exceptionMemo, collectorsMemo, ...logMemos];

/** Forgets every remembered part (their objects are about to be edited). */
export function forgetProfileJson(): void {
  for (const memo of ALL_MEMOS) memo.forget();
}

/** `JSON.stringify(head)`. The keys are written in ProfileHead's order, as build() creates them (tests compare both). */
export function headJson(head: ProfileHead): string {
  try {
    const w = new Writer();
    w.raw('{');
    w.field('token', head.token, true);
    w.field('parent', head.parent);
    w.field('children', head.children);
    w.field('time', head.time);
    w.field('datetime', head.datetime);
    w.raw(',');
    identityMemo.write(w, head);
    w.field('durationMs', head.durationMs);
    w.field('totalMs', head.totalMs);
    w.field('memory', head.memory);
    w.raw(',"request":');
    w.raw(requestMemo.json(head.request));
    w.raw(',"response":');
    writeResponse(w, head.response);
    w.raw(',"session":');
    w.raw(sessionMemo.json(head.session));
    w.raw(',"security":');
    w.raw(securityMemo.json(head.security));
    w.raw(',"routing":');
    w.raw(routingMemo.json(head.routing));
    w.raw('}');
    return w.text;
  } catch (error) {
    if (error !== OMITTED) throw error;
    return JSON.stringify(head);
  }
}

function writeResponse(w: Writer, response: ProfileHead['response']): void {
  const keys = isPlainObject(response) ? Object.keys(response) : [];
  if (keys.length !== 3 || keys[0] !== 'headers' || keys[1] !== 'cookies' || keys[2] !== 'contentType') return w.value(response);
  w.raw('{"headers":');
  responseHeadersMemo.write(w, response.headers);
  w.raw(',"cookies":');
  w.raw(responseCookiesMemo.json(response.cookies));
  w.field('contentType', response.contentType);
  w.raw('}');
}

/** `JSON.stringify(tail)`. */
export function tailJson(tail: ProfileTail): string {
  try {
    const w = new Writer();
    w.raw('{"logs":');
    writeLogs(w, tail.logs);
    w.field('droppedLogs', tail.droppedLogs);
    w.raw(',"exception":');
    w.raw(exceptionMemo.json(tail.exception));
    w.raw(',"collectors":');
    w.raw(collectorsMemo.json(tail.collectors));
    w.field('truncated', tail.truncated);
    w.raw('}');
    return w.text;
  } catch (error) {
    if (error !== OMITTED) throw error;
    return JSON.stringify(tail);
  }
}

function writeLogs(w: Writer, logs: readonly ProfiledLogRecord[]): void {
  if (!isPlainArray(logs)) return w.value(logs);
  w.raw('[');
  for (let i = 0; i < logs.length; i++) {
    if (i > 0) w.raw(',');
    const r = logs[i];
    if (i < LOG_MEMOS && isPlainObject(r) && typeof r.datetime === 'string') logMemos[i]!.write(w, r);
    else w.value(r ?? null);
  }
  w.raw(']');
}
