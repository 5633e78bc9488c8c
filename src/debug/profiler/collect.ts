/**
 * Builds the profile of one request (CONTRACT §6.2) in kernel.terminate, after the client has the
 * response. Everything is masked (mask.ts) and bounded here, before it reaches a store.
 *
 * This file assembles the profile; its parts are built in ./collect/: limits.ts (the bounds),
 * request-parts.ts (headers, body, session, security), logs.ts, exception.ts, listener-calls.ts,
 * resident-memory.ts, safe-read.ts (reads that never throw) and serialize.ts (the JSON, kept under
 * the size bound).
 */
import type { AppServices } from '../../app/services.ts';
import type { KernelRequest } from '../../http/request.ts';
import type { HttpResponse } from '../../http/response.ts';
import { HTTP_TOKEN } from '../../http/cookies.ts';
import { knownStatusText } from '../../http/status.ts';
import { defineOwn } from '../../security/mask.ts';
import { accessDecisionsOf } from '../../security/member.ts';
import { isoStringOf } from '../error-page/iso-date.ts';
import { isSecretName, isSecretParameter, maskHeaders, maskToken, parseSetCookie, sanitize, sanitizeFields, sanitizeRecord, scrubStoredText, truncate, MASK } from './mask.ts';
import type { CollectedProfile, ProfileHead, ProfileTail } from './stored.ts';
import type { ProfiledCookie } from './profile.ts';
import { exceptionFromLogs, profileException } from './collect/exception.ts';
import { PROFILE_LIMITS } from './collect/limits.ts';
import { listenerCalls, responseReadyMs } from './collect/listener-calls.ts';
import { logs } from './collect/logs.ts';
import { requestContent, requestHeaders, security, session, NO_CONTENT, type Content } from './collect/request-parts.ts';
import { now } from '../../kernel/clock.ts';
import { residentMemory } from './collect/resident-memory.ts';
import { asRecord, attempt } from './collect/safe-read.ts';
import { bound } from './collect/serialize.ts';

export { PROFILE_LIMITS } from './collect/limits.ts';
export { profileException } from './collect/exception.ts';
export { rememberedRequestHeaders } from './collect/request-parts.ts';
export { residentMemory, RSS_SAMPLE_MS } from './collect/resident-memory.ts';

export interface Recording {
  token: string;
  /** Milliseconds from the request's start until kernel.response reached the profiler. */
  durationMs: number;
  /**
   * Wall-clock time (ms since the epoch) when kernel.response reached the profiler: the profile's `time`,
   * as Symfony's Profiler::collect dates it. Not the collection's, which kernel.terminate runs after the
   * body is written: a streamed response would be dated when its stream ended.
   */
  time: number;
  /** Set when a token came back from a sub-request already (kept as X-Previous-Debug-Token). */
  previousToken: string | null;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

function functionName(value: unknown): string | null {
  if (typeof value === 'function') return value.name || 'anonymous controller';
  if (typeof value === 'string') return value;
  return null;
}

const EMPTY_RECORD: Record<string, unknown> = Object.freeze(Object.create(null) as Record<string, unknown>);

/**
 * sanitizeRecord of a request parameter bag's entries (query, body), read key by key; a parameter that
 * only request parameters count as secret (OAuth's `code`, isSecretParameter) masked here.
 */
function sanitizeBag(bag: { keys(): string[]; get(key: string): unknown }): Record<string, unknown> {
  const keys = bag.keys();
  return keys.length === 0 ? {} : sanitizeFields(keys, (key) => maskedParameter(key, bag.get(key)));
}

function maskedParameter(key: string, value: unknown): unknown {
  return value === '' || value === null || value === undefined || isSecretName(key) || !isSecretParameter(key) ? value : MASK;
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

  const exception = error ?? exceptionFromLogs(request, response.status);
  const time = recording.time;
  // Encoded credentials too: the query table shows the same values decoded and masked.
  const url = scrubStoredText(attempt(() => request.getUri(), request.target));
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
    statusText: knownStatusText(response.status),
    route: typeof route === 'string' ? route : null,
    controller,
    durationMs: round(responseReadyMs(request.trace, recording.durationMs)),
    totalMs: round(now() - request.startTime),
    memory: residentMemory(),
    request: {
      // Scrubbed as the URL is (`/reset;token=…`): the URL, `path_info` and the route parameters
      // show the same path masked, and a raw copy here would keep the secret in the profile.
      pathInfo: truncate(scrubStoredText(request.pathInfo), 4096),
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
      cookies: requestCookies(attempt(() => request.cookies.keys(), [] as string[])),
      contentType: request.contentType,
      content: content.content,
      contentLength: content.length,
      contentTruncated: content.truncated,
    },
    response: {
      headers: maskHeaders(response.headers.lines(), PROFILE_LIMITS.headers, PROFILE_LIMITS.headerValue),
      cookies: responseCookies(response.headers.getSetCookies()),
      contentType,
    },
    session: session(request, collectedRequest, services.config.sessionCookieName),
    security: security(attribute, accessDecisionsOf(request)),
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
 * Cookies kept per list. Past it a last row says how many were left out, as headers (`…`: "more
 * headers not kept") and parameters (`…`: "N more keys") do: a list cut silently reads as complete.
 */
const MAX_COOKIES = 100;

function cookiesDropped(count: number): ProfiledCookie {
  return { name: '…', value: `${count - MAX_COOKIES} more cookies not kept` };
}

function requestCookies(names: readonly string[]): ProfiledCookie[] {
  const kept = names.slice(0, MAX_COOKIES).map((name): ProfiledCookie => ({ name: cookieNameShown(name), value: MASK }));
  if (names.length > MAX_COOKIES) kept.push(cookiesDropped(names.length));
  return kept;
}

function responseCookies(lines: readonly string[]): ProfiledCookie[] {
  const kept: ProfiledCookie[] = lines.slice(0, MAX_COOKIES).map((line) => parseSetCookie(truncate(line, PROFILE_LIMITS.headerValue)));
  if (lines.length > MAX_COOKIES) kept.push({ ...cookiesDropped(lines.length), attributes: '' });
  return kept;
}

/** A request cookie's name as stored: masked too when it is no HTTP token (`SECRET, b`): it may carry a value. */
function cookieNameShown(name: string): string {
  return name === '' || HTTP_TOKEN.test(name) ? truncate(name, 256) : MASK;
}
