import type { ExceptionEvent } from '../kernel/events.ts';
import {
  AccessDeniedException,
  AccessDeniedHttpException,
  AuthenticationException,
  HttpException,
  exceptionChain,
  InsufficientAuthenticationException,
} from '../kernel/exceptions.ts';
import { listener } from '../kernel/hooks.ts';
import { FIREWALL_ATTRIBUTE, getMember } from '../security/member.ts';

/**
 * Symfony's security ExceptionListener (Security\Http\Firewall), without an entry point or an
 * access-denied handler. The firewall registers it for the requests it runs on (FirewallListener), ahead
 * of the kernel.exception table (Symfony's priority 1), so it is absent from requests no firewall with
 * security saw: a routing failure, `/_profiler`. It turns the security exceptions a controller or a
 * listener throws into HTTP errors:
 * - AuthenticationException: 401 with its message;
 * - AccessDeniedException: 401 "Full authentication is required to access this resource." for anonymous
 *   and remember-me members; otherwise 403 with its message (AccessDeniedHttpException).
 * The first security exception of the chain decides, as in Symfony.
 */
export const securityExceptionListener = listener<'kernel.exception'>('ExceptionListener::onKernelException', 'security exception translation', (event: ExceptionEvent) => {
  for (const error of exceptionChain(event.throwable)) {
    if (error instanceof AuthenticationException) return unauthorized(event, error, 'info', 'An AuthenticationException was thrown; redirecting to authentication entry point.');
    if (error instanceof AccessDeniedException) return accessDenied(event, error);
  }
});

function accessDenied(event: ExceptionEvent, error: AccessDeniedException): void {
  const member = getMember(event.request);
  if (member === null || member.authenticatedBy === 'remember_me') {
    const insufficient = new InsufficientAuthenticationException('Full authentication is required to access this resource.', error);
    return unauthorized(event, insufficient, 'debug', 'Access denied, the user is not fully authenticated; redirecting to authentication entry point.', error);
  }
  event.request.logger.debug('security', 'Access denied, the user is neither anonymous, nor remember-me.', { exception: error });
  event.setThrowable(new AccessDeniedHttpException(error.message, error));
}

function unauthorized(event: ExceptionEvent, error: AuthenticationException, level: 'info' | 'debug', message: string, logged: Error = error): void {
  const logger = event.request.logger;
  logger[level]('security', message, { exception: logged });
  const firewall = event.request.attributes.get(FIREWALL_ATTRIBUTE);
  logger.notice('security', `No Authentication entry point configured, returning a 401 HTTP response. Configure "entry_point" on the firewall "${String(firewall)}" if you want to modify the response.`);
  event.setThrowable(new HttpException(401, error.message, error));
}
