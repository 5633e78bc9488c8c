/**
 * Builds the profile of one request (CONTRACT §6.2) in kernel.terminate, after the client has the
 * response. Everything is masked (mask.ts) and bounded here, before it reaches a store.
 */
import type { AppServices } from '../../app/services.ts';
import type { KernelRequest } from '../../http/request.ts';
import type { HttpResponse } from '../../http/response.ts';
import { statusText } from '../../http/status.ts';
import { classNameOf, exceptionChain, statusOf } from '../../kernel/exceptions.ts';
import type { ListenerCall } from '../../kernel/hooks.ts';
import type { HookName } from '../../kernel/events.ts';
import { HOOKS } from '../../kernel/events.ts';
import { interpolate } from '../../log/record.ts';
import { throwLocation } from '../stack.ts';
import {
  maskContent,
  maskHeaders,
  maskToken,
  parseSetCookie,
  sanitize,
  sanitizeRecord,
  scrubText,
  truncate,
  MASK,
} from './mask.ts';
import type { Profile, ProfiledException, ProfiledListenerCall, ProfiledLogRecord } from './profile.ts';
import { utf8Length } from './storage.ts';

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

/** Resident set size when the runtime tells (Node, Deno), else null. */
export function residentMemory(): number | null {
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

function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
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
      stack: truncate(scrubText(e.stack ?? ''), PROFILE_LIMITS.stack),
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

function events(trace: readonly ListenerCall[] | null): ProfiledListenerCall[] {
  if (!trace) return [];
  return trace.slice(0, PROFILE_LIMITS.events).map((c) => ({
    hook: c.hook,
    listener: c.listener,
    role: c.role,
    startMs: round(c.startMs),
    durationMs: round(c.durationMs),
  }));
}

function notCalled(services: AppServices, trace: readonly ListenerCall[] | null): Profile['notCalledListeners'] {
  const hooks = services.kernel?.hooks;
  if (!hooks) return [];
  const called = new Set((trace ?? []).map((c) => `${c.hook} ${c.listener}`));
  const out: Profile['notCalledListeners'] = [];
  for (const hook of HOOKS) {
    // kernel.terminate is still running while the profile is collected.
    if (hook === 'kernel.terminate') continue;
    for (const l of hooks[hook] ?? []) {
      if (!called.has(`${hook} ${l.id}`)) out.push({ hook: hook as HookName, listener: l.id, role: l.role });
    }
  }
  return out.slice(0, 500);
}

function logs(request: KernelRequest): ProfiledLogRecord[] {
  return request.logRecords.slice(0, PROFILE_LIMITS.logs).map((r) => ({
    datetime: attempt(() => r.datetime.toISOString(), ''),
    level: r.level,
    level_name: r.levelName.toUpperCase(),
    channel: r.channel,
    message: truncate(scrubText(attempt(() => interpolate(r.message, r.context), r.message)), 8192),
    context: sanitize(r.context),
  }));
}

async function requestContent(request: KernelRequest): Promise<{ content: string | null; length: number; truncated: boolean }> {
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

function security(attributes: Record<string, unknown>): Profile['security'] {
  const token = attributes.irms_token;
  const memberId = attributes.member_id;
  const firewall = attributes._firewall ?? attributes._firewall_context;
  return {
    token: token === undefined || token === null ? null : typeof token === 'string' ? maskToken(token) : sanitize(token),
    memberId: memberId === undefined ? null : sanitize(memberId),
    firewall: typeof firewall === 'string' ? firewall : firewall === undefined || firewall === null ? null : String(sanitize(firewall)),
    authenticated: (memberId !== undefined && memberId !== null) || (token !== undefined && token !== null && token !== ''),
  };
}

/** Builds the profile. Never throws for odd request data: each part falls back to "unknown". */
export async function collectProfile(
  services: AppServices,
  request: KernelRequest,
  response: HttpResponse,
  recording: Recording,
  error: Error | null,
): Promise<Profile> {
  const collected = attempt(() => request.collected, {} as Record<string, unknown>);
  const collectedRouter = asRecord(collected.router);
  const collectedRequest = asRecord(collected.request);
  const rawAttributes = request.attributes.all();
  const route = (collectedRouter?.route ?? rawAttributes._route ?? null) as string | null;
  const controller = functionName(collectedRouter?.controller) ?? functionName(rawAttributes._controller);
  const routeParams = asRecord(collectedRouter?.routeParams) ?? asRecord(rawAttributes._route_params) ?? {};

  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rawAttributes)) {
    attributes[key] = key === '_controller' ? functionName(value) : key === 'irms_token' && typeof value === 'string' ? maskToken(value) : value;
  }

  const exception = error ?? exceptionFromLogs(request);
  const content = await requestContent(request);
  const time = Date.now();
  const url = scrubText(attempt(() => request.getUri(), request.target));
  const contentType = response.headers.get('content-type');
  const others: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(collected)) if (name !== 'router' && name !== 'request') others[name] = value;

  const profile: Profile = {
    token: recording.token,
    parent: null,
    children: [],
    time: Math.floor(time / 1000),
    datetime: new Date(time).toISOString(),
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
      format: typeof rawAttributes._format === 'string' ? rawAttributes._format : null,
      isXmlHttpRequest: attempt(() => request.isXmlHttpRequest(), false),
      query: sanitizeRecord(attempt(() => request.query.all(), {})),
      body: sanitizeRecord(attempt(() => request.request.all(), {})),
      attributes: sanitizeRecord(attributes),
      headers: maskHeaders(Object.entries(attempt(() => request.headers.all(), {})), PROFILE_LIMITS.headers, PROFILE_LIMITS.headerValue),
      cookies: Object.keys(attempt(() => request.cookies.all(), {})).slice(0, 100).map((name) => ({ name: truncate(name, 256), value: MASK })),
      contentType: request.contentType,
      content: content.content,
      contentLength: content.length,
      contentTruncated: content.truncated,
    },
    response: {
      headers: maskHeaders(response.headers.entries(), PROFILE_LIMITS.headers, PROFILE_LIMITS.headerValue),
      cookies: response.headers.getSetCookies().slice(0, 100).map((line) => parseSetCookie(truncate(line, PROFILE_LIMITS.headerValue))),
      contentType,
    },
    session: session(request, collectedRequest, services.config.sessionCookieName),
    security: security(rawAttributes),
    routing: {
      route: typeof route === 'string' ? route : null,
      params: sanitizeRecord(routeParams),
      controller,
      redirect: collectedRequest?.redirect === undefined ? null : sanitize(collectedRequest.redirect),
    },
    events: events(request.trace),
    notCalledListeners: notCalled(services, request.trace),
    logs: logs(request),
    droppedLogs: attempt(() => request.logger.droppedRecords, 0),
    exception: exception ? profileException(exception) : null,
    collectors: sanitizeRecord(others),
    truncated: [],
  };
  return bound(profile);
}

/** Keeps a profile under PROFILE_LIMITS.profileBytes by dropping its largest optional parts. */
function bound(profile: Profile): Profile {
  const size = () => utf8Length(JSON.stringify(profile));
  if (size() <= PROFILE_LIMITS.profileBytes) return profile;
  if (profile.request.content) {
    profile.request.content = null;
    profile.request.contentTruncated = true;
    profile.truncated.push('request content');
    if (size() <= PROFILE_LIMITS.profileBytes) return profile;
  }
  for (const r of profile.logs) r.context = {};
  profile.truncated.push('log contexts');
  if (size() <= PROFILE_LIMITS.profileBytes) return profile;
  profile.collectors = {};
  profile.truncated.push('collectors');
  profile.logs = profile.logs.slice(-100);
  profile.truncated.push('logs beyond the last 100');
  profile.events = profile.events.slice(0, 500);
  if (size() <= PROFILE_LIMITS.profileBytes) return profile;
  profile.request.query = {};
  profile.request.body = {};
  profile.request.attributes = {};
  profile.session = profile.session ? { ...profile.session, attributes: {} } : null;
  profile.truncated.push('parameters');
  return profile;
}
