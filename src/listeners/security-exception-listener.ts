import type { ExceptionEvent } from '../kernel/events.ts';
import {
  AccessDeniedException,
  AccessDeniedHttpException,
  AuthenticationException,
  HttpException,
  exceptionChain,
  InsufficientAuthenticationException,
  UnauthorizedHttpException,
} from '../kernel/exceptions.ts';
import { isThenable, listener, type Listener } from '../kernel/hooks.ts';
import { HttpResponse } from '../http/response.ts';
import type { AccessDeniedHandlerFunction, EntryPointFunction } from '../security/custom-authenticator.ts';
import type { Firewall } from '../security/firewall-map.ts';
import type { Authenticator } from '../security/authenticator.ts';
import { redirectOnHost, redirectsToLogin } from '../security/entry-point.ts';
import { FIREWALL_ATTRIBUTE, getMember } from '../security/member.ts';
import { saveTargetPath } from '../security/target-path.ts';

/**
 * The priority the firewall registers its ExceptionListener at (Firewall::onKernelRequest): above the
 * profiler and ErrorListener::logKernelException (0), below an application's listener placed higher.
 */
export const SECURITY_EXCEPTION_PRIORITY = 1;

/**
 * Symfony's security ExceptionListener (Security\Http\Firewall), with the firewall's `entryPoint` and
 * `accessDeniedHandler` when it has them (no `error_page` sub-request: every request is a main one). The
 * firewall registers it for the requests it runs on (FirewallListener), placed in the kernel.exception
 * table at Symfony's priority 1, so it is absent from requests no firewall with security saw: a routing
 * failure, `/_profiler`. It turns the security exceptions a controller or a listener throws (the
 * `security` and `isGranted` route options too) into HTTP errors:
 * - AuthenticationException: the entry point — a 302 to the firewall's login path for HTML clients —
 *   else 401 with its message;
 * - AccessDeniedException: for anonymous and remember-me members, the entry point, else 401 "Full
 *   authentication is required to access this resource."; otherwise 403 with its message
 *   (AccessDeniedHttpException).
 * The first security exception of the chain decides, as in Symfony.
 */
export function createSecurityExceptionListener(authenticator: Authenticator): Listener<'kernel.exception'> {
  return listener<'kernel.exception'>('ExceptionListener::onKernelException', 'security exception translation', (event: ExceptionEvent) => {
    for (const error of exceptionChain(event.throwable)) {
      if (error instanceof AuthenticationException) return handleAuthenticationException(event, authenticator, error);
      if (error instanceof AccessDeniedException) {
        const pending = settleToken(event, authenticator);
        if (pending) return pending.then(() => handleAccessDeniedException(event, authenticator, error));
        return handleAccessDeniedException(event, authenticator, error);
      }
    }
  }, SECURITY_EXCEPTION_PRIORITY);
}

/**
 * Settles the request's token before access denial reads it. ExceptionListener::handleAccessDeniedException
 * asks the TokenStorage for the token, and TokenStorage::getToken first runs the initializer a lazy
 * firewall left (LazyFirewallContext::__invoke): a GET denied before the controller (by a kernel.request
 * listener) still sees the member of the session. Read as anonymous, a logged-in member was sent to the
 * login page (or got a 401) instead of the 403. Authentication failing here leaves the request anonymous:
 * the error being handled is still the one answered.
 */
function settleToken(event: ExceptionEvent, authenticator: Authenticator): void | Promise<void> {
  const request = event.request;
  try {
    const pending = authenticator.authenticate(request);
    if (pending) return pending.catch(() => undefined);
  } catch {
    // anonymous, as above
  }
}

function handleAuthenticationException(event: ExceptionEvent, authenticator: Authenticator, error: AuthenticationException): void | Promise<void> {
  event.request.logger.info('security', 'An AuthenticationException was thrown; redirecting to authentication entry point.', { exception: error });
  // handleAuthenticationException allows the entry point's status; handleAccessDeniedException does not.
  return startAuthentication(event, authenticator, error, true);
}

/** ExceptionListener::handleAccessDeniedException (5.4). */
function handleAccessDeniedException(event: ExceptionEvent, authenticator: Authenticator, error: AccessDeniedException): void | Promise<void> {
  const logger = event.request.logger;
  event.setThrowable(new AccessDeniedHttpException(error.message, error));
  const member = getMember(event.request);
  if (member === null || member.authenticatedBy === 'remember_me') {
    logger.debug('security', 'Access denied, the user is not fully authenticated; redirecting to authentication entry point.', { exception: error });
    return startAuthentication(event, authenticator, new InsufficientAuthenticationException('Full authentication is required to access this resource.', error));
  }
  logger.debug('security', 'Access denied, the user is neither anonymous, nor remember-me.', { exception: error });
  const handler = authenticator.firewallOf(event.request)?.accessDeniedHandler ?? null;
  if (handler !== null) return handleWith(event, handler, error);
}

/**
 * The firewall's `accessDeniedHandler`, as ExceptionListener runs it: a response it answers is the
 * request's (its status kept only when it is an error or a redirect, as for any response to an exception);
 * null, or anything that is no response, keeps the 403; an error it throws is logged and becomes Symfony's
 * RuntimeException-like wrapper.
 */
function handleWith(event: ExceptionEvent, handler: AccessDeniedHandlerFunction, error: AccessDeniedException): void | Promise<void> {
  const failed = (thrown: unknown) => {
    event.request.logger.error('security', 'An exception was thrown when handling an AccessDeniedException.', { exception: thrown });
    event.setThrowable(new Error('Exception thrown when handling an exception.', { cause: thrown }));
  };
  // `if ($response instanceof Response)`: anything else keeps the 403.
  const apply = (response: unknown) => {
    if (response instanceof HttpResponse || response instanceof Response) event.setResponse(response);
  };
  let answer: unknown;
  try {
    answer = handler(event.request, error);
  } catch (thrown) {
    return failed(thrown);
  }
  if (isThenable(answer)) return Promise.resolve(answer).then(apply, failed);
  apply(answer);
}

/**
 * ExceptionListener::startAuthentication with an entry point of the app's (`entryPoint`, or a custom
 * authenticator's `start`): the URL asked for is kept as the target path (not on stateless firewalls), and
 * the entry point's response is the request's. Anything else it answers is Symfony's LogicException; an
 * error it throws is the error answered.
 */
function callEntryPoint(event: ExceptionEvent, firewall: Firewall, entryPoint: EntryPointFunction, error: AuthenticationException, customStatus: boolean): void | Promise<void> {
  const request = event.request;
  request.logger.debug('security', 'Calling Authentication entry point.');
  const apply = (response: unknown) => {
    if (!(response instanceof HttpResponse || response instanceof Response)) {
      event.setThrowable(new Error(`The entry point of firewall "${firewall.name}" must return a Response object ("${described(response)}" returned).`));
      return;
    }
    event.setResponse(response);
    if (customStatus) event.allowCustomResponseCode();
  };
  const start = () => {
    let answer: unknown;
    try {
      answer = entryPoint(request, error);
    } catch (thrown) {
      event.setThrowable(thrown as Error);
      return;
    }
    if (isThenable(answer)) return Promise.resolve(answer).then(apply, (thrown: unknown) => event.setThrowable(thrown as Error));
    apply(answer);
  };
  const saving = firewall.stateless ? undefined : saveTargetPath(request);
  if (saving) return saving.then(start);
  return start();
}

/** get_debug_type, near enough for a message. */
function described(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'object';
}

/**
 * ExceptionListener::startAuthentication (5.4): the firewall's entry point answers — here the login
 * path's redirect, for the clients `requiresLogin` redirects too (README), with the URL asked for kept
 * in the session (setTargetPath) — or, without one,
 * throwUnauthorizedException: the NOTICE and HttpException(401, <its message>).
 */
function startAuthentication(event: ExceptionEvent, authenticator: Authenticator, error: AuthenticationException, customStatus = false): void | Promise<void> {
  const request = event.request;
  const logger = request.logger;
  const own = authenticator.firewallOf(request);
  if (own !== null && own.entryPoint !== null) return callEntryPoint(event, own, own.entryPoint, error, customStatus);
  const loginPath = authenticator.loginPathOf(request);
  if (redirectsToLogin(request, loginPath)) {
    logger.debug('security', 'Calling Authentication entry point.');
    event.setResponse(redirectOnHost(request, loginPath));
    return saveTargetPath(request);
  }
  // A stateless firewall's entry point is its bearer authentication (README): the 401 names the scheme,
  // as `requiresLogin` answers there, and as an API authenticator's start() does in Symfony.
  if (authenticator.firewallOf(request)?.stateless === true) {
    logger.debug('security', 'Calling Authentication entry point.');
    event.setThrowable(new UnauthorizedHttpException('Bearer', error.message, error));
    return;
  }
  const firewall = request.attributes.get(FIREWALL_ATTRIBUTE);
  logger.notice('security', `No Authentication entry point configured, returning a 401 HTTP response. Configure "entry_point" on the firewall "${String(firewall)}" if you want to modify the response.`);
  event.setThrowable(new HttpException(401, error.message, error));
}
