/**
 * Builds the profile of one request (CONTRACT §6.2) in kernel.terminate, after the client has the
 * response. Everything is masked (mask.ts) and bounded here, before it reaches a store.
 */
import type { AppServices } from '../../app/services.ts';
import type { KernelRequest } from '../../http/request.ts';
import type { HttpResponse } from '../../http/response.ts';
import { HTTP_TOKEN } from '../../http/cookies.ts';
import { statusText } from '../../http/status.ts';
import { classNameOf, exceptionChain, statusOf } from '../../kernel/exceptions.ts';
import type { Listener, ListenerCall } from '../../kernel/hooks.ts';
import { HOOKS, type HookName } from '../../kernel/events.ts';
import { LEVELS } from '../../log/levels.ts';
import { interpolate } from '../../log/record.ts';
import { defineOwn } from '../../security/mask.ts';
import { isoString, isoStringOf } from '../error-page/iso-date.ts';
import { throwLocation } from '../stack.ts';
import {
  maskContent,
  maskHeaders,
  maskToken,
  parseSetCookie,
  sanitize,
  sanitizeFields,
  sanitizeRecord,
  scrubText,
  truncate,
  MASK,
} from './mask.ts';
import { summaryOf, type Profile, type ProfiledException, type ProfiledLogRecord } from './profile.ts';
import { forgetProfileJson, headJson as headText, tailJson as tailText } from './profile-json.ts';
import {
  CallList,
  callShape,
  CollectedProfile,
  msJsonLength,
  notCalledListBytes,
  type CallShape,
  splitProfileBytes,
  utf8Length,
  type NotCalledEntry,
  type ProfileHead,
  type ProfileTail,
} from './stored.ts';

/** Per-profile bounds (peers.md §3.3: profiles of 50 MB, disks full of them). */
export const PROFILE_LIMITS = {
  /** Raw request body kept, in characters. */
  content: 64 * 1024,
  logs: 500,
  events: 2000,
  headers: 100,
  headerValue: 4096,
  stack: 16 * 1024,
  /** A profile above this (serialized) loses its content, then log contexts, then most logs. */
  profileBytes: 1024 * 1024,
} as const;

export interface Recording {
  token: string;
  /** Milliseconds from the request's start until kernel.response reached the profiler. */
  durationMs: number;
  /** Set when a token came back from a sub-request already (kept as X-Previous-Debug-Token). */
  previousToken: string | null;
}

const now: () => number = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();
const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** How long a sampled resident set size is reused: reading it costs a system call and a file read. */
export const RSS_SAMPLE_MS = 100;
let rssValue: number | null = null;
let rssAt = -Infinity;

/** Resident set size when the runtime tells (Node, Deno), else null; sampled at most every RSS_SAMPLE_MS. */
export function residentMemory(): number | null {
  const t = now();
  if (t - rssAt < RSS_SAMPLE_MS) return rssValue;
  rssAt = t;
  rssValue = readResidentMemory();
  return rssValue;
}

function readResidentMemory(): number | null {
  try {
    const proc = (globalThis as { process?: { memoryUsage?: { (): { rss: number }; rss?: () => number } } }).process;
    if (proc?.memoryUsage) return typeof proc.memoryUsage.rss === 'function' ? proc.memoryUsage.rss() : proc.memoryUsage().rss;
    const deno = (globalThis as { Deno?: { memoryUsage?: () => { rss: number } } }).Deno;
    if (deno?.memoryUsage) return deno.memoryUsage().rss;
  } catch {
    // not allowed or not available
  }
  return null;
}

function attempt<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

function functionName(value: unknown): string | null {
  if (typeof value === 'function') return value.name || 'anonymous controller';
  if (typeof value === 'string') return value;
  return null;
}

const EMPTY_RECORD: Record<string, unknown> = Object.freeze(Object.create(null) as Record<string, unknown>);

/** sanitizeRecord of a parameter bag's entries, read key by key. */
function sanitizeBag(bag: { keys(): string[]; get(key: string): unknown }): Record<string, unknown> {
  const keys = bag.keys();
  return keys.length === 0 ? {} : sanitizeFields(keys, (key) => bag.get(key));
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * The last few stacks that scrubbing left as they were. An error thrown from the same place has the
 * same stack (every 404 of a URL); comparing it with these is cheaper than scanning it again. Only
 * unchanged stacks are kept: nothing the masking would hide outlives the request.
 */
const cleanStacks: string[] = [];
const CLEAN_STACKS = 4;

function scrubStack(stack: string): string {
  for (let i = 0; i < cleanStacks.length; i++) if (cleanStacks[i] === stack) return stack;
  const scrubbed = scrubText(stack);
  if (scrubbed === stack) {
    if (cleanStacks.length >= CLEAN_STACKS) cleanStacks.pop();
    cleanStacks.unshift(stack);
  }
  return scrubbed;
}

export function profileException(error: Error): ProfiledException | null {
  const chain = exceptionChain(error);
  let previous: ProfiledException | null = null;
  for (let i = chain.length - 1; i >= 0; i--) {
    const e = chain[i]!;
    const { file, line } = throwLocation(e);
    previous = {
      class: classNameOf(e),
      message: truncate(scrubText(e.message), 4096),
      status: statusOf(e),
      file,
      line,
      stack: truncate(scrubStack(e.stack ?? ''), PROFILE_LIMITS.stack),
      previous,
    };
  }
  return previous;
}

/** The error of a request when the profiler's exception listener did not see it (an earlier listener answered). */
function exceptionFromLogs(request: KernelRequest): Error | null {
  const records = request.logRecords;
  for (let i = records.length - 1; i >= 0; i--) {
    const e = records[i]!.context.exception;
    if (e instanceof Error) return e;
  }
  return null;
}

/** When the response was handed over: the end of the last listener call before kernel.terminate. */
function responseReadyMs(trace: readonly ListenerCall[] | null, atProfiler: number): number {
  let end = atProfiler;
  for (const c of trace ?? []) if (c.hook !== 'kernel.terminate') end = Math.max(end, c.startMs + c.durationMs);
  return end;
}

/**
 * Per hook table: which (hook, listener id) pairs exist, numbered, and the not-called entries in
 * table order (shared by every profile). Rebuilt when a hook's listener array changes.
 */
interface ListenerIndex {
  lists: (readonly Listener[])[];
  lengths: number[];
  /** hook → listener id → slot. */
  slots: Map<string, Map<string, number>>;
  /** In table order (kernel.terminate left out: it is still running while the profile is collected). */
  entries: { slot: number; entry: NotCalledEntry }[];
  slotCount: number;
  /** The last few call sequences seen with this table. */
  signatures: TraceSignature[];
  nextSignature: number;
}

const listenerIndexes = new WeakMap<object, ListenerIndex>();
const NOT_CALLED_LIMIT = 500;
const EMPTY: readonly Listener[] = [];

function listenerIndex(hooks: Record<string, readonly Listener[] | undefined>): ListenerIndex {
  const cached = listenerIndexes.get(hooks);
  if (cached) {
    let valid = true;
    for (let i = 0; i < HOOKS.length && valid; i++) {
      const list = hooks[HOOKS[i]!] ?? EMPTY;
      valid = list === cached.lists[i] && list.length === cached.lengths[i];
    }
    if (valid) return cached;
  }
  const index: ListenerIndex = { lists: [], lengths: [], slots: new Map(), entries: [], slotCount: 0, signatures: [], nextSignature: 0 };
  for (const hook of HOOKS) {
    const list = hooks[hook] ?? EMPTY;
    index.lists.push(list);
    index.lengths.push(list.length);
    const slots = new Map<string, number>();
    index.slots.set(hook, slots);
    for (const l of list) {
      let slot = slots.get(l.id);
      if (slot === undefined) slots.set(l.id, (slot = index.slotCount++));
      if (hook !== 'kernel.terminate') index.entries.push({ slot, entry: { hook: hook as HookName, listener: l.id, role: l.role } });
    }
  }
  listenerIndexes.set(hooks, index);
  return index;
}

/** Listeners of the table (but kernel.terminate's) that the trace never called, in table order. */
function notCalledIn(index: ListenerIndex | null, trace: readonly ListenerCall[] | null): NotCalledEntry[] {
  if (!index) return [];
  const marks = new Uint8Array(index.slotCount);
  if (trace) {
    for (let i = 0; i < trace.length; i++) {
      const slot = index.slots.get(trace[i]!.hook)?.get(trace[i]!.listener);
      if (slot !== undefined) marks[slot] = 1;
    }
  }
  const out: NotCalledEntry[] = [];
  for (const { slot, entry } of index.entries) {
    if (marks[slot] === 0) {
      out.push(entry);
      if (out.length >= NOT_CALLED_LIMIT) break;
    }
  }
  return out;
}

/**
 * What a sequence of listener calls gives a profile besides its times: the call shapes and the
 * listeners not called. Requests to the same route call the same listeners, so the last few
 * sequences are remembered and a request that repeats one only compares its calls with it.
 */
interface TraceSignature {
  hooks: string[];
  listeners: string[];
  roles: string[];
  shapes: CallShape[];
  shapesBytes: number;
  notCalled: NotCalledEntry[];
  notCalledBytes: number;
}

const SIGNATURES = 8;

function sameCalls(sig: TraceSignature, trace: readonly ListenerCall[]): boolean {
  if (sig.listeners.length !== trace.length) return false;
  for (let i = 0; i < trace.length; i++) {
    const c = trace[i]!;
    if (c.listener !== sig.listeners[i] || c.hook !== sig.hooks[i] || c.role !== sig.roles[i]) return false;
  }
  return true;
}

function signatureOf(index: ListenerIndex | null, trace: readonly ListenerCall[]): TraceSignature {
  if (index) for (let i = 0; i < index.signatures.length; i++) if (sameCalls(index.signatures[i]!, trace)) return index.signatures[i]!;
  const shapes = trace.slice(0, PROFILE_LIMITS.events).map((c) => callShape(c.hook, c.listener, c.role));
  const notCalled = notCalledIn(index, trace);
  const sig: TraceSignature = {
    hooks: trace.map((c) => c.hook),
    listeners: trace.map((c) => c.listener),
    roles: trace.map((c) => c.role),
    shapes,
    shapesBytes: CallList.shapesBytes(shapes),
    notCalled,
    notCalledBytes: notCalledListBytes(notCalled),
  };
  // Long traces (a loop of sub-requests) are not worth remembering.
  if (index && trace.length <= 512) {
    index.signatures[index.nextSignature] = sig;
    index.nextSignature = (index.nextSignature + 1) % SIGNATURES;
  }
  return sig;
}

/** The profile's listener calls (bounded) and the listeners it did not call. */
function listenerCalls(services: AppServices, trace: readonly ListenerCall[] | null): { calls: CallList; notCalled: NotCalledEntry[]; notCalledBytes: number } {
  const hooks = services.kernel?.hooks as Record<string, readonly Listener[] | undefined> | undefined;
  const index = hooks ? listenerIndex(hooks) : null;
  const sig = signatureOf(index, trace ?? []);
  const n = sig.shapes.length;
  const times: number[] = new Array(2 * n);
  let timesBytes = 0;
  for (let i = 0; i < n; i++) {
    const c = trace![i]!;
    const start = Math.round(c.startMs * 1000);
    const duration = Math.round(c.durationMs * 1000);
    times[2 * i] = start;
    times[2 * i + 1] = duration;
    timesBytes += msJsonLength(start) + msJsonLength(duration);
  }
  return { calls: new CallList(sig.shapes, times, sig.shapesBytes, timesBytes), notCalled: sig.notCalled, notCalledBytes: sig.notCalledBytes };
}

function recordDatetime(record: { datetime: Date }): string {
  try {
    return isoString(record.datetime);
  } catch {
    return '';
  }
}

/** Monolog's upper-case level names, without a new string per record. */
const LEVEL_NAMES = new Map(Object.keys(LEVELS).map((name) => [name, name.toUpperCase()]));

function levelName(name: string): string {
  return LEVEL_NAMES.get(name) ?? name.toUpperCase();
}

function logs(request: KernelRequest): ProfiledLogRecord[] {
  const records = request.logRecords;
  const n = Math.min(records.length, PROFILE_LIMITS.logs);
  const out: ProfiledLogRecord[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    let message: string;
    try {
      message = interpolate(r.message, r.context);
    } catch {
      message = r.message;
    }
    out[i] = {
      datetime: recordDatetime(r),
      level: r.level,
      level_name: levelName(r.levelName),
      channel: r.channel,
      message: truncate(scrubText(message), 8192),
      context: sanitize(r.context),
    };
  }
  return out;
}

/**
 * The last request headers that masking left as they were, and their masked copy (frozen: the
 * profiles share it). A client sends the same headers request after request. Headers that masking
 * changes (cookies, credentials) are never remembered: nothing secret is kept past the request.
 */
let lastPlainHeaders: string[] = [];
let lastMaskedHeaders: Readonly<Record<string, string>> | null = null;

function requestHeaders(request: KernelRequest): Record<string, string> {
  const flat = attempt(() => request.headers.lines(), [] as string[]);
  if (lastMaskedHeaders !== null && sameStrings(flat, lastPlainHeaders)) return lastMaskedHeaders;
  const masked = maskHeaders(flat, PROFILE_LIMITS.headers, PROFILE_LIMITS.headerValue);
  if (maskedNothing(flat, masked)) {
    lastPlainHeaders = flat;
    lastMaskedHeaders = Object.freeze(masked);
  }
  return masked;
}

/** The raw request headers remembered, as name, value, name, value... (tests). */
export function rememberedRequestHeaders(): readonly string[] {
  return lastMaskedHeaders === null ? [] : lastPlainHeaders;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether the masked headers are the raw ones (name, value, name, value...), the same and in the same order. */
function maskedNothing(flat: readonly string[], masked: Record<string, string>): boolean {
  const names = Object.keys(masked);
  if (names.length * 2 !== flat.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== flat[2 * i] || masked[names[i]!] !== flat[2 * i + 1]) return false;
  return true;
}

const NO_CONTENT = { content: null, length: 0, truncated: false } as const;

async function requestContent(request: KernelRequest): Promise<Content> {
  if (!request.contentRead) return { content: null, length: 0, truncated: false };
  let bytes: Uint8Array;
  try {
    bytes = await request.content();
  } catch {
    return { content: null, length: 0, truncated: false };
  }
  const length = bytes.byteLength;
  if (length === 0) return { content: '', length: 0, truncated: false };
  // Decode a little more than kept, so masking sees whole fields near the cut.
  const slice = bytes.subarray(0, Math.min(length, PROFILE_LIMITS.content * 4));
  const text = new TextDecoder().decode(slice);
  const masked = maskContent(text, request.contentType, PROFILE_LIMITS.content);
  return { content: masked, length, truncated: length > slice.byteLength || masked.length < text.length || text.length > PROFILE_LIMITS.content };
}

function session(request: KernelRequest, collectedRequest: Record<string, unknown> | null, cookieName: string): Profile['session'] {
  const collectorRan = collectedRequest !== null && 'sessionAttributes' in collectedRequest;
  const fromCollector = collectedRequest ? asRecord(collectedRequest.sessionAttributes) : null;
  const s = request.sessionIfCreated;
  if (s) {
    // Read without counting as a use of the session (peek), and never load one the request did not.
    const peek = (s as { peek?: () => Record<string, unknown> | null }).peek;
    const attributes = collectorRan ? fromCollector : typeof peek === 'function' ? attempt(() => peek.call(s), null) : s.isStarted ? attempt(() => s.all(), null) : null;
    return { id: maskToken(attempt(() => s.id, '')), started: attempt(() => s.isStarted, false), attributes: sanitizeRecord(attributes) };
  }
  if (fromCollector) return { id: null, started: true, attributes: sanitizeRecord(fromCollector) };
  const cookie = attempt(() => request.cookies.get(cookieName), undefined);
  if (typeof cookie === 'string' && cookie) return { id: maskToken(cookie), started: false, attributes: {} };
  return null;
}

function security(attribute: (key: string) => unknown): Profile['security'] {
  const token = attribute('irms_token');
  const memberId = attribute('member_id');
  const firewall = attribute('_firewall') ?? attribute('_firewall_context');
  return {
    token: token === undefined || token === null ? null : typeof token === 'string' ? maskToken(token) : sanitize(token),
    memberId: memberId === undefined ? null : sanitize(memberId),
    firewall: typeof firewall === 'string' ? firewall : firewall === undefined || firewall === null ? null : String(sanitize(firewall)),
    authenticated: (memberId !== undefined && memberId !== null) || (token !== undefined && token !== null && token !== ''),
  };
}

/**
 * Builds the profile, serialized (stored.ts). Never throws for odd request data: each part falls
 * back to "unknown". Synchronous unless the application read the request body (a promise then).
 */
export function collectProfile(
  services: AppServices,
  request: KernelRequest,
  response: HttpResponse,
  recording: Recording,
  error: Error | null,
): CollectedProfile | Promise<CollectedProfile> {
  if (request.contentRead) return requestContent(request).then((content) => build(services, request, response, recording, error, content));
  return build(services, request, response, recording, error, NO_CONTENT);
}

type Content = { content: string | null; length: number; truncated: boolean };

function build(services: AppServices, request: KernelRequest, response: HttpResponse, recording: Recording, error: Error | null, content: Content): CollectedProfile {
  const collected = attempt(() => request.collected, EMPTY_RECORD);
  const collectedRouter = asRecord(collected.router);
  const collectedRequest = asRecord(collected.request);
  // Parameter bags are read key by key: no copy into an object first.
  const bag = request.attributes;
  const attribute = (key: string): unknown => bag.get(key);
  const route = (collectedRouter?.route ?? attribute('_route') ?? null) as string | null;
  const controller = functionName(collectedRouter?.controller) ?? functionName(attribute('_controller'));
  const routeParams = asRecord(collectedRouter?.routeParams) ?? asRecord(attribute('_route_params')) ?? {};
  const shownAttribute = (key: string): unknown => {
    const value = bag.get(key);
    return key === '_controller' ? functionName(value) : key === 'irms_token' && typeof value === 'string' ? maskToken(value) : value;
  };
  const format = attribute('_format');

  const exception = error ?? exceptionFromLogs(request);
  const time = Date.now();
  const url = scrubText(attempt(() => request.getUri(), request.target));
  const contentType = response.headers.get('content-type');
  const others: Record<string, unknown> = {};
  for (const name of Object.keys(collected)) if (name !== 'router' && name !== 'request' && Object.hasOwn(collected, name)) defineOwn(others, name, collected[name]);

  const head: ProfileHead = {
    token: recording.token,
    parent: null,
    children: [],
    time: Math.floor(time / 1000),
    datetime: isoStringOf(time),
    ip: attempt(() => request.getClientIp(), '') || 'Unknown',
    method: attempt(() => request.method, request.realMethod),
    url: truncate(url, 8192),
    status: response.status,
    statusText: statusText(response.status),
    route: typeof route === 'string' ? route : null,
    controller,
    durationMs: round(responseReadyMs(request.trace, recording.durationMs)),
    totalMs: round(now() - request.startTime),
    memory: residentMemory(),
    request: {
      pathInfo: truncate(request.pathInfo, 4096),
      realMethod: request.realMethod,
      scheme: attempt(() => request.getScheme(), 'http'),
      host: attempt(() => request.getHttpHost(), ''),
      locale: attempt(() => request.locale, null),
      format: typeof format === 'string' ? format : null,
      isXmlHttpRequest: attempt(() => request.isXmlHttpRequest(), false),
      query: attempt(() => sanitizeBag(request.query), {}),
      body: attempt(() => sanitizeBag(request.request), {}),
      attributes: sanitizeFields(bag.keys(), shownAttribute),
      headers: requestHeaders(request),
      cookies: attempt(() => request.cookies.keys(), [] as string[]).slice(0, 100).map((name) => ({ name: cookieNameShown(name), value: MASK })),
      contentType: request.contentType,
      content: content.content,
      contentLength: content.length,
      contentTruncated: content.truncated,
    },
    response: {
      headers: maskHeaders(response.headers.lines(), PROFILE_LIMITS.headers, PROFILE_LIMITS.headerValue),
      cookies: response.headers.getSetCookies().slice(0, 100).map((line) => parseSetCookie(truncate(line, PROFILE_LIMITS.headerValue))),
      contentType,
    },
    session: session(request, collectedRequest, services.config.sessionCookieName),
    security: security(attribute),
    routing: {
      route: typeof route === 'string' ? route : null,
      params: sanitizeRecord(routeParams),
      controller,
      redirect: collectedRequest?.redirect === undefined ? null : sanitize(collectedRequest.redirect),
    },
  };
  const tail: ProfileTail = {
    logs: logs(request),
    droppedLogs: attempt(() => request.logger.droppedRecords, 0),
    exception: exception ? profileException(exception) : null,
    collectors: sanitizeRecord(others),
    truncated: [],
  };
  return bound(head, listenerCalls(services, request.trace), tail);
}

/**
 * Serializes a profile once (reusing the JSON of parts equal to the last profile's, profile-json.ts)
 * and keeps it under PROFILE_LIMITS.profileBytes by dropping its largest optional parts
 * (re-serializing only then, with plain JSON.stringify).
 */
function bound(head: ProfileHead, listeners: { calls: CallList; notCalled: NotCalledEntry[]; notCalledBytes: number }, tail: ProfileTail): CollectedProfile {
  let calls = listeners.calls;
  const { notCalled: notCalledList, notCalledBytes } = listeners;
  let headJson = '';
  let tailJson = '';
  let headBytes = 0;
  let tailBytes = 0;
  const serialize = (part: 'head' | 'tail' | 'both', remembered = false) => {
    if (part !== 'tail') {
      headJson = remembered ? headText(head) : JSON.stringify(head);
      headBytes = utf8Length(headJson);
    }
    if (part !== 'head') {
      tailJson = remembered ? tailText(tail) : JSON.stringify(tail);
      tailBytes = utf8Length(tailJson);
    }
  };
  const fits = () => splitProfileBytes(headBytes, calls.bytes, notCalledBytes, tailBytes) <= PROFILE_LIMITS.profileBytes;
  const done = () =>
    new CollectedProfile(
      head.token,
      summaryOf(head, 0),
      headJson,
      calls,
      notCalledList,
      tailJson,
      headBytes,
      notCalledBytes,
      tailBytes,
    );
  serialize('both', true);
  if (fits()) return done();
  // Cutting edits parts that the JSON memos may hold: they forget them first.
  forgetProfileJson();
  if (head.request.content) {
    head.request.content = null;
    head.request.contentTruncated = true;
    tail.truncated.push('request content');
    serialize('both');
    if (fits()) return done();
  }
  for (const r of tail.logs) r.context = {};
  tail.truncated.push('log contexts');
  serialize('tail');
  if (fits()) return done();
  tail.collectors = {};
  tail.truncated.push('collectors');
  tail.logs = tail.logs.slice(-100);
  tail.truncated.push('logs beyond the last 100');
  calls = calls.slice(500);
  serialize('tail');
  if (fits()) return done();
  head.request.query = {};
  head.request.body = {};
  head.request.attributes = {};
  head.session = head.session ? { ...head.session, attributes: {} } : null;
  tail.truncated.push('parameters');
  serialize('both');
  return done();
}

/** A request cookie's name as stored: masked too when it is no HTTP token (`SECRET, b`): it may carry a value. */
function cookieNameShown(name: string): string {
  return name === '' || HTTP_TOKEN.test(name) ? truncate(name, 256) : MASK;
}
