import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import type { ControllerEvent } from '../kernel/events.ts';
import { AccessDeniedException, UnauthorizedHttpException } from '../kernel/exceptions.ts';
import { listener, idleWhen, routeLacks } from '../kernel/hooks.ts';
import type { Authenticator } from '../security/authenticator.ts';
import { IRMS_TOKEN_ATTRIBUTE, MEMBER_ID_ATTRIBUTE } from '../security/login.ts';
import { redirectOnHost, redirectsToLogin } from '../security/entry-point.ts';
import { saveTargetPath } from '../security/target-path.ts';
import { maskToken } from '../security/mask.ts';
import { getMember } from '../security/member.ts';

export interface LoginListenerOptions {
  authenticator: Authenticator;
  /** Log the INFO `app` record (false when the stream drops INFO and no request keeps records). */
  logInfo: boolean;
}

const UNAUTHORIZED_MESSAGE = 'Full authentication is required to access this resource.';

/**
 * The application's login listeners (CONTRACT §8.5).
 * - setup (first kernel.controller listener): settles the firewall's (lazy) authentication — session
 *   member, bearer token or remember-me cookie — and records `irms_token` and `member_id` as request
 *   attributes (empty strings when anonymous), then logs them at INFO on channel `app` with context
 *   exactly `{ irms_token, member_id }`, the token masked to its first 4 characters plus `…`.
 * - check: routes with the `requiresLogin` option reject anonymous requests — 401 with
 *   `WWW-Authenticate: Bearer` (JSON clients get problem+json from the error listener), or, for HTML
 *   clients when a login path is configured, a 302 to it: the firewall's own `loginPath`, else LOGIN_PATH
 *   (none on stateless firewalls), as Symfony's entry point is per firewall; the URL asked for is kept
 *   in the session for the login controller (target-path.ts). HEAD is treated as GET.
 */
export class LoginListener {
  private readonly authenticator: Authenticator;
  private readonly logInfo: boolean;
  private readonly redirectToLogin: (request: KernelRequest) => HttpResponse;

  constructor(options: LoginListenerOptions) {
    const authenticator = (this.authenticator = options.authenticator);
    this.logInfo = options.logInfo;
    this.redirectToLogin = function redirectToLogin(request: KernelRequest): HttpResponse {
      return redirectOnHost(request, authenticator.loginPathOf(request));
    };
  }

  readonly setup = listener<'kernel.controller'>('LoginListener::setup', 'login setup', (event: ControllerEvent) => {
    const request = event.request;
    const pending = this.authenticator.authenticate(request);
    if (pending) return pending.then(() => this.record(request));
    this.record(request);
  });

  readonly check = idleWhen(
    listener<'kernel.controller'>('LoginListener::check', 'login check', (event: ControllerEvent) => {
      const request = event.request;
      const options = request.attributes.get('_route_options') as { requiresLogin?: unknown } | undefined;
      if (!options || !options.requiresLogin || getMember(request) !== null) return;
      // A firewall with an entry point of the app's answers through it, as for any denial (security-exception-listener.ts).
      if (this.authenticator.firewallOf(request)?.entryPoint) throw new UnauthorizedHttpException('Bearer', UNAUTHORIZED_MESSAGE, new AccessDeniedException());
      if (redirectsToLogin(request, this.authenticator.loginPathOf(request))) {
        request.logger.info('security', 'Anonymous request to a route that requires login; redirecting to the login path.');
        event.setController(this.redirectToLogin);
        // Nothing of the protected route runs for the redirect, as nothing does when Symfony's firewall
        // denies at kernel.request (AccessListener, then ExceptionListener::startAuthentication): its
        // converters ran the app's lookups for anonymous clients (a 404 for a missing id, the redirect for
        // an existing one) and its `cache` option made the browser keep the redirect to the login page.
        event.stopPropagation();
        return saveTargetPath(request);
      }
      throw new UnauthorizedHttpException('Bearer', UNAUTHORIZED_MESSAGE);
    }),
    routeLacks('requiresLogin', null),
  );

  private record(request: KernelRequest): void {
    const member = getMember(request);
    const irmsToken = member ? member.irmsToken : '';
    const memberId = member ? member.memberId : '';
    request.attributes.set(IRMS_TOKEN_ATTRIBUTE, irmsToken);
    request.attributes.set(MEMBER_ID_ATTRIBUTE, memberId);
    if (this.logInfo) {
      request.logger.info('app', 'Login setup: irms_token "{irms_token}", member_id "{member_id}".', { irms_token: maskToken(irmsToken), member_id: memberId });
    }
  }
}
