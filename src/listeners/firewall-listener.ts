import type { FinishRequestEvent, RequestEvent } from '../kernel/events.ts';
import { listener, type Listener } from '../kernel/hooks.ts';
import type { Authenticator } from '../security/authenticator.ts';
import { rawUrlDecode } from '../http/url-encode.ts';
import type { KernelRequest } from '../http/request.ts';
import { redirectOnHost } from '../security/entry-point.ts';
import { startSession } from '../session/session.ts';
import type { Firewall } from '../security/firewall-map.ts';
import { LOGOUT_CSRF_TOKEN_ID_ATTRIBUTE, LOGOUT_PATH_ATTRIBUTE, logOut } from '../security/login.ts';
import { TOKEN_ATTRIBUTE } from '../security/member.ts';
import type { FirewallMap } from '../security/firewall-map.ts';
import { channelRedirect, decideAccess, wrongChannel, type AccessMap, type AccessRule } from '../security/access-control.ts';
import { runCustomAuthenticators } from '../security/custom-authenticator.ts';
import { isCsrfTokenValid } from '../security/csrf.ts';
import { AccessDeniedHttpException, FrameworkError } from '../kernel/exceptions.ts';
import { createSecurityExceptionListener } from './security-exception-listener.ts';

/**
 * Symfony's FirewallListener (SecurityBundle), main request only.
 * - configureLogoutUrlGenerator: finds the request's firewall in the map (`_firewall`,
 *   `_firewall_context`) and tells the logout URL generator about it (`logoutUrl(request)`).
 * - onKernelRequest: runs the firewall. `security: false` firewalls do nothing. Others register the
 *   security ExceptionListener for this request (security-exception-listener.ts) and run the firewall's
 *   custom authenticators that support the request (custom-authenticator.ts); lazy firewalls defer
 *   authentication for GET and HEAD (alike) until something needs the member — LoginListener::setup
 *   does, before the controller; other methods, and non-lazy firewalls, authenticate now. A request
 *   to the firewall's logout path is logged out here, as by Symfony's LogoutListener (below). With
 *   `accessControl` rules, the firewall's ChannelListener and AccessListener run too (runFirewallWithAccess).
 * - onKernelFinishRequest: resets the logout URL generator, and settles a still-deferred
 *   authentication as anonymous so nothing after the response (kernel.terminate) loads the session
 *   that was already saved.
 */
export class FirewallListener {
  /** The security ExceptionListener, whose entry point is the firewall's login path. */
  private readonly exceptionListener: Listener<'kernel.exception'>;
  /** The usual per-request list, shared: nothing is allocated per request. */
  private readonly exceptionListeners: Listener<'kernel.exception'>[];

  readonly onKernelRequest: Listener<'kernel.request'>;

  constructor(
    private readonly map: FirewallMap,
    private readonly authenticator: Authenticator,
  ) {
    this.exceptionListener = createSecurityExceptionListener(authenticator);
    this.exceptionListeners = [this.exceptionListener];
    // Chosen once: without rules, a request pays nothing for access control (not even a test for them).
    const access = map.accessMap;
    this.onKernelRequest = listener<'kernel.request'>('FirewallListener::onKernelRequest', 'security firewall', access === null ? this.runFirewall : (event: RequestEvent) => this.runFirewallWithAccess(event, access));
  }

  readonly configureLogoutUrlGenerator = listener<'kernel.request'>('FirewallListener::configureLogoutUrlGenerator', 'logout URL generator configuration', (event: RequestEvent) => {
    const request = event.request;
    if (!request.isMainRequest) return;
    const firewall = this.map.matchRequest(request);
    this.authenticator.assign(request, firewall);
    if (firewall !== null && firewall.logoutPath !== null) {
      request.attributes.set(LOGOUT_PATH_ATTRIBUTE, firewall.logoutPath);
      if (firewall.logoutCsrfTokenId !== null) request.attributes.set(LOGOUT_CSRF_TOKEN_ID_ATTRIBUTE, firewall.logoutCsrfTokenId);
    }
  });

  private readonly runFirewall = (event: RequestEvent): void | Promise<void> => {
    const request = event.request;
    const firewall = this.enter(request);
    if (firewall === null) return;
    const custom = runCustomAuthenticators(request, firewall);
    if (custom !== null) return custom.then((response) => (response !== null ? event.setResponse(response) : this.afterAuthenticators(event, firewall)));
    return this.afterAuthenticators(event, firewall);
  };

  private afterAuthenticators(event: RequestEvent, firewall: Firewall): void | Promise<void> {
    const request = event.request;
    if (firewall.logoutPath !== null && requestsLogout(request, firewall.logoutPath)) return logout(event, this.authenticator, firewall);
    return this.authenticateUnlessLazy(request, firewall);
  }

  /** The main request's firewall with security, its ExceptionListener registered; null when no firewall runs. */
  private enter(request: KernelRequest): Firewall | null {
    if (!request.isMainRequest) return null;
    const firewall = this.authenticator.firewallOf(request);
    if (firewall === null || !firewall.security) return null;
    const added = request.exceptionListeners;
    request.exceptionListeners = added === null ? this.exceptionListeners : [...added, this.exceptionListener];
    return firewall;
  }

  private authenticateUnlessLazy(request: KernelRequest, firewall: Firewall): void | Promise<void> {
    const method = request.method;
    if (firewall.lazy && (method === 'GET' || method === 'HEAD')) return;
    return this.authenticator.authenticate(request);
  }

  /**
   * runFirewall with the firewall's listeners in Symfony's order (Firewall::onKernelRequest sorts them by
   * priority): ChannelListener (256) answers a request on the wrong scheme before anything else; then
   * authentication, the LogoutListener (-127) and AccessListener (-255), which applies the first matching
   * rule. A rule that asks something of the member (AccessListener::supports) makes a lazy firewall
   * authenticate now (LazyFirewallContext); a rule asking nothing, or none, leaves it lazy.
   *
   * Where the LogoutListener runs depends on the firewall's context, as in Symfony 5.4. A FirewallContext's
   * listeners are one sorted list, so the logout (-127) comes before the AccessListener (-255). A lazy one
   * (SecurityExtension makes every `lazy` firewall that is not `stateless` a LazyFirewallContext) is a single
   * listener of priority 0 holding all of them, ChannelListener and AccessListener included, so
   * Firewall::onKernelRequest yields the LogoutListener after it: a rule denying the logout path is
   * applied first (the login redirect, 401 or 403), and only a request it lets through is logged out.
   */
  private runFirewallWithAccess(event: RequestEvent, access: AccessMap): void | Promise<void> {
    const request = event.request;
    const firewall = this.enter(request);
    if (firewall === null) return;
    const rule = access.match(request);
    if (rule !== null && rule.channel !== null && wrongChannel(request, rule)) return event.setResponse(channelRedirect(request));
    const custom = runCustomAuthenticators(request, firewall);
    if (custom !== null) return custom.then((response) => (response !== null ? event.setResponse(response) : this.accessAfterAuthenticators(event, firewall, rule)));
    return this.accessAfterAuthenticators(event, firewall, rule);
  }

  private accessAfterAuthenticators(event: RequestEvent, firewall: Firewall, rule: AccessRule | null): void | Promise<void> {
    const request = event.request;
    const logsOut = firewall.logoutPath !== null && requestsLogout(request, firewall.logoutPath);
    if (logsOut && !(firewall.lazy && !firewall.stateless)) return logout(event, this.authenticator, firewall);
    if (rule === null || !rule.checksAccess) return logsOut ? logout(event, this.authenticator, firewall) : this.authenticateUnlessLazy(request, firewall);
    const decide = () => {
      const decided = decideAccess(request, rule);
      if (!logsOut) return decided;
      if (decided) return decided.then(() => logout(event, this.authenticator, firewall));
      return logout(event, this.authenticator, firewall);
    };
    const pending = this.authenticator.authenticate(request);
    if (pending) return pending.then(decide);
    return decide();
  }

  readonly onKernelFinishRequest = listener<'kernel.finish_request'>('FirewallListener::onKernelFinishRequest', 'firewall cleanup', (event: FinishRequestEvent) => {
    const request = event.request;
    if (!request.isMainRequest) return;
    const attributes = request.attributes;
    attributes.remove(LOGOUT_PATH_ATTRIBUTE);
    attributes.remove(LOGOUT_CSRF_TOKEN_ID_ATTRIBUTE);
    if (!attributes.has(TOKEN_ATTRIBUTE)) attributes.set(TOKEN_ATTRIBUTE, null);
  });
}

/**
 * HttpUtils::checkRequestPath: the logout path is the decoded path info (`rawurldecode`), or, when it is
 * no path, the name of the matched route. The decode runs only for paths with an escape.
 */
function requestsLogout(request: KernelRequest, logoutPath: string): boolean {
  if (logoutPath[0] !== '/') return request.attributes.get('_route') === logoutPath;
  const path = request.pathInfo;
  return path === logoutPath || (path.includes('%') && rawUrlDecode(path) === logoutPath);
}

/**
 * Symfony's LogoutListener, which the firewall runs after its ContextListener: the member (session or
 * remember-me) is settled first, then logged out — the session invalidated (SessionLogoutListener),
 * the remember-me cookie cleared — and the request is answered with a redirect to the firewall's
 * logout target (DefaultLogoutListener), before routing's controller or any later listener runs.
 * A stateless firewall only forgets the member: SecurityExtension gives it no SessionLogoutListener,
 * and it reads no remember-me cookie, so the session and cookie it would end are another firewall's.
 */
function logout(event: RequestEvent, authenticator: Authenticator, firewall: Firewall): void | Promise<void> {
  const request = event.request;
  const done = () => {
    if (firewall.logoutCsrfTokenId !== null && !logoutCsrfTokenValid(request, firewall.logoutCsrfTokenId)) throw invalidLogoutCsrfToken(request);
    if (firewall.context !== '') logOut(request);
    else request.attributes.set(TOKEN_ATTRIBUTE, null);
    event.setResponse(redirectOnHost(request, firewall.logoutTarget));
  };
  // On a `stateless` route the authenticator did not read the session, yet Symfony's SessionLogoutListener
  // still invalidates it: an asynchronous store must deliver it first, or invalidate() throws (a 500).
  const load = () => {
    const loading = firewall.context !== '' && request.cookieHeader !== null && request.hasSession() ? startSession(request) : undefined;
    if (loading) return loading.then(done);
    done();
  };
  const pending = authenticator.authenticate(request);
  if (pending) return pending.then(load);
  return load();
}

/** Symfony's LogoutException (Security\Core\Exception), which its ExceptionListener turns into a 403. */
class LogoutException extends FrameworkError {
  static override readonly className: string = 'LogoutException';
}

/** Symfony's `csrf_parameter` default: LogoutUrlGenerator puts the token there, LogoutListener reads it. */
const LOGOUT_CSRF_PARAMETER = '_csrf_token';

/**
 * LogoutListener's check with `csrf_token_generator`: the parameter read as Request::get reads it
 * (attributes, then query, then body) must be the session's token for the id. Without the session cookie
 * there is no token to compare with, and asking the session would only start one.
 */
function logoutCsrfTokenValid(request: KernelRequest, tokenId: string): boolean {
  if (request.cookieHeader === null || !request.hasSession()) return false;
  const attributes = request.attributes;
  const value = attributes.has(LOGOUT_CSRF_PARAMETER)
    ? attributes.get(LOGOUT_CSRF_PARAMETER)
    : request.query.has(LOGOUT_CSRF_PARAMETER)
      ? request.query.get(LOGOUT_CSRF_PARAMETER)
      : request.request.get(LOGOUT_CSRF_PARAMETER);
  return isCsrfTokenValid(request, tokenId, value);
}

/** ExceptionListener::handleLogoutException (5.4): the LogoutException wrapped in a 403, logged as Symfony logs it. */
function invalidLogoutCsrfToken(request: KernelRequest): AccessDeniedHttpException {
  const error = new LogoutException('Invalid CSRF token.');
  request.logger.info('security', 'A LogoutException was thrown; wrapping with AccessDeniedHttpException', { exception: error });
  return new AccessDeniedHttpException(error.message, error);
}
