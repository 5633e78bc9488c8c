import type { KernelRequest } from '../http/request.ts';
import { assertReadableCookieName } from '../http/cookies.ts';
import type { HttpResponse } from '../http/response.ts';
import type { Session } from '../http/session.ts';
import type { FinishRequestEvent, RequestEvent, ResponseEvent } from '../kernel/events.ts';
import { FrameworkError } from '../kernel/exceptions.ts';
import { listener } from '../kernel/hooks.ts';
import { isWellFormedSessionId, StoredSession, type SaveOutcome } from '../session/session.ts';
import { isStatelessRoute } from '../security/authenticator.ts';
import type { SessionStore } from '../session/store.ts';
import { serializeCacheControl } from './cache-control.ts';

/** Symfony's header that turns off the session's automatic cache headers; always removed from the response. */
export const NO_AUTO_CACHE_CONTROL_HEADER = 'Symfony-Session-NoAutoCacheControl';
/** The same, as response headers store names: looked up on every response without lower-casing it again. */
const NO_AUTO_CACHE_CONTROL_KEY = NO_AUTO_CACHE_CONTROL_HEADER.toLowerCase();

/** The session was used while the route is declared `stateless`. */
export class UnexpectedSessionUsageException extends FrameworkError {
  static override readonly className: string = 'UnexpectedSessionUsageException';
}

export interface SessionListenerOptions {
  store: SessionStore;
  cookieName: string;
  /** Debug: session use on a stateless route is an error (500) instead of a warning. */
  debug: boolean;
}

/** The id in the request's session cookie when it is well-formed, else null (read only when a Cookie header exists). */
export function requestedSessionId(request: KernelRequest, cookieName: string): string | null {
  if (request.cookieHeader === null) return null;
  const id = request.cookies.get(cookieName);
  return typeof id === 'string' && isWellFormedSessionId(id) ? id : null;
}

/** True when the request carries a session cookie at all (Symfony's hasPreviousSession). */
export function hasSessionCookie(request: KernelRequest, cookieName: string): boolean {
  return request.cookieHeader !== null && request.cookies.has(cookieName);
}

/**
 * Whether the session cookie the request sent is PHP-truthy: AbstractSessionListener::onKernelResponse
 * clears the cookie only `if ($requestSessionCookieId && $isSessionEmpty)`, so a cookie sent empty
 * (`IRMSSESSID=`, or a bare `IRMSSESSID`) or as `0` gets no `Set-Cookie: ...=deleted` when the
 * session is empty. (`name[...]` cookies are arrays, never empty, so truthy.)
 */
function sentTruthySessionCookie(request: KernelRequest, cookieName: string): boolean {
  if (!hasSessionCookie(request, cookieName)) return false;
  const value = request.cookies.get(cookieName);
  return typeof value !== 'string' || (value !== '' && value !== '0');
}

/**
 * Symfony's (Abstract)SessionListener.
 * - kernel.request: installs a lazy session factory; nothing is read, created or sent yet.
 * - kernel.response: when the session was used, saves it and mirrors that in the cookie (set when the
 *   client lacks the id, cleared when the session became empty), and makes the response private
 *   (`Cache-Control: max-age=0, must-revalidate, private` unless it already had a max-age).
 * - kernel.finish_request: when a listener after the save (priority below -1000) used the session, saves
 *   it again into the same response, as Symfony's session restarts on demand and PHP writes it at
 *   shutdown ("writing to it after it is saved will just restart it", AbstractSessionListener); then
 *   closes it: later writes throw instead of being lost.
 */
export class SessionListener {
  private readonly cookieName: string;
  private readonly debug: boolean;
  /** One factory for every request: it gets the request from `getSession()`. */
  private readonly createSession: (request: KernelRequest) => Session;

  constructor(options: SessionListenerOptions) {
    assertReadableCookieName('sessionCookieName (SESSION_COOKIE_NAME)', options.cookieName);
    this.cookieName = options.cookieName;
    this.debug = options.debug;
    const { store, cookieName } = options;
    this.createSession = (request) => new StoredSession(store, requestedSessionId(request, cookieName));
  }

  readonly onKernelRequest = listener<'kernel.request'>('SessionListener::onKernelRequest', 'session start', (event: RequestEvent) => {
    const request = event.request;
    if (!request.isMainRequest || request.hasSession()) return;
    request.setSessionFactory(this.createSession);
  });

  readonly onKernelResponse = listener<'kernel.response'>('SessionListener::onKernelResponse', 'session save', (event: ResponseEvent) => {
    const request = event.request;
    if (!request.isMainRequest) return;
    const response = event.response;
    const autoCacheControl = !response.headers.has(NO_AUTO_CACHE_CONTROL_KEY);
    if (!autoCacheControl) response.headers.delete(NO_AUTO_CACHE_CONTROL_KEY);
    const session = request.sessionIfCreated;
    request.sessionSaveResponse = response;
    if (session === null) return;
    if (session instanceof StoredSession) session.usageAtSave = session.usage;
    if (!session.isStarted) return;

    // The route's `stateless` option counts from routing on, as Symfony's `_stateless` route default does:
    // the attribute itself is set at kernel.controller, which a response from kernel.request never reaches.
    if (isStatelessRoute(request)) {
      const message = 'Session was used while the request was declared stateless.';
      if (this.debug) throw new UnexpectedSessionUsageException(message);
      // Channel `app`: FrameworkBundle hands session_listener the plain `logger` service (no monolog.logger
      // channel tag, unlike router_listener's `request`), which is Monolog's `app` channel.
      request.logger.warning('app', message);
    }
    if (autoCacheControl) makePrivate(request, response);
    if (!(session instanceof StoredSession)) return;
    const outcome = session.save();
    if (typeof outcome === 'string') return this.mirrorCookie(request, response, session, outcome);
    return outcome.then((done) => this.mirrorCookie(request, response, session, done));
  });

  readonly onFinishRequest = listener<'kernel.finish_request'>('SessionListener::onFinishRequest', 'session finish', (event: FinishRequestEvent) => {
    const request = event.request;
    if (!request.isMainRequest) return;
    const session = request.sessionIfCreated;
    if (!(session instanceof StoredSession)) return;
    const response = request.sessionSaveResponse;
    if (response === null || session.usage === session.usageAtSave) return session.close();
    const outcome = session.save();
    session.close();
    if (typeof outcome === 'string') return this.mirrorCookie(request, response, session, outcome);
    return outcome.then((done) => this.mirrorCookie(request, response, session, done));
  });

  private mirrorCookie(request: KernelRequest, response: HttpResponse, session: StoredSession, outcome: SaveOutcome): void {
    if (outcome === 'stored') {
      if (session.id !== session.requestedId || !hasSessionCookie(request, this.cookieName)) {
        response.headers.setCookie(this.cookieName, session.id, { path: '/', httpOnly: true, sameSite: 'lax', secure: request.isSecure() });
      }
    } else if (outcome === 'emptied' && sentTruthySessionCookie(request, this.cookieName)) {
      response.headers.clearCookie(this.cookieName, { path: '/', httpOnly: true, sameSite: 'lax', secure: request.isSecure() });
    }
  }
}

/**
 * Symfony 5.4.17+: a response that used the session is private and must be revalidated; it keeps its
 * max-age unless it was public (then 0). `Expires` follows the max-age.
 */
function makePrivate(request: KernelRequest, response: HttpResponse): void {
  const directives = response.headers.cacheControlDirectives();
  const maxAgeValue = directives.has('public') ? 0 : currentMaxAge(response, directives);
  directives.delete('public');
  directives.set('private', true);
  directives.set('max-age', String(maxAgeValue));
  directives.set('must-revalidate', true);
  response.headers.set('cache-control', serializeCacheControl(directives));
  response.headers.set('expires', new Date(Date.now() + maxAgeValue * 1000).toUTCString());
}

/**
 * Response::getMaxAge, as `(int)` casts it: s-maxage, else max-age, else the seconds from the response's
 * Date (now when it has none) to its Expires. So `cache: { expires }` on a page that uses the session
 * keeps its expiry as a private max-age, as in Symfony. An Expires in the past, or one that is no date
 * (which Response::getExpires reads as two days ago), gives 0: Symfony 5.4 would write that negative
 * number as the max-age, which no cache accepts.
 */
/** PHP's `(int)` of a directive's value: its leading integer (`60.5` is 60, `10abc` 10), a bare directive 1, else 0. */
function phpInt(value: string | true): number {
  if (value === true) return 1;
  const digits = /^[ \t\n\r\v\f]*[+-]?\d+/.exec(value);
  return digits === null ? 0 : Number.parseInt(digits[0], 10) || 0;
}

function currentMaxAge(response: HttpResponse, directives: Map<string, string | true>): number {
  const age = directives.get('s-maxage') ?? directives.get('max-age');
  if (age !== undefined) return phpInt(age);
  const expires = response.headers.get('expires');
  if (expires === null) return 0;
  const date = response.headers.get('date');
  const from = date === null ? Date.now() : Date.parse(date);
  const seconds = Math.floor(Date.parse(expires) / 1000) - Math.floor((Number.isNaN(from) ? Date.now() : from) / 1000);
  return Number.isNaN(seconds) || seconds < 0 ? 0 : seconds;
}
