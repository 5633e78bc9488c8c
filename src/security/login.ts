import type { KernelRequest } from '../http/request.ts';
import { clearCsrfTokens, csrfToken } from './csrf.ts';
import { statefulContextOf, withHierarchy, type RememberMeCookieAction } from './authenticator.ts';
import {
  REMEMBER_ME_COOKIE_ATTRIBUTE,
  TOKEN_ATTRIBUTE,
  toMember,
  type Member,
} from './member.ts';

/** Request attributes every request that reaches its controller carries (CONTRACT §8.5). */
export const IRMS_TOKEN_ATTRIBUTE = 'irms_token';
export const MEMBER_ID_ATTRIBUTE = 'member_id';
/** Set by FirewallListener::configureLogoutUrlGenerator for `logoutUrl()`. */
export const LOGOUT_PATH_ATTRIBUTE = '_logout_path';
/** Set with it when the firewall protects its logout with a CSRF token (`logoutCsrfTokenId`). */
export const LOGOUT_CSRF_TOKEN_ID_ATTRIBUTE = '_logout_csrf_token_id';

export interface LoginCredentials {
  memberId: string;
  /** The member's `irms_token` (what API clients send as `Authorization: Bearer`). */
  irmsToken: string;
  roles?: readonly string[];
  /**
   * Also set an encrypted remember-me cookie, so a later visit without the session logs the member back in
   * (on firewalls of this context only). With `createApp({ verifyBearerToken })` and no `refreshMember`,
   * that verifier must accept this `irmsToken`, or the cookie is rejected and cleared.
   */
  rememberMe?: boolean;
}

/**
 * Logs a member in for the rest of this request and, through the session, for the following ones.
 * Call it from your login controller once you have checked the credentials:
 *
 * ```ts
 * { name: 'login', path: '/login', methods: ['POST'], controller: async (request) => {
 *     const member = await myMembers.check(request.request.get('username'), request.request.get('password'));
 *     if (!member) return HttpResponse.text('Invalid credentials.', 401);
 *     logIn(request, { memberId: member.id, irmsToken: member.token, roles: member.roles, rememberMe: true });
 *     return HttpResponse.redirect('/');
 * } }
 * ```
 *
 * - The session id is rotated (the pre-login id stops working: no session fixation).
 * - `irms_token`, `member_id` and the member (`getMember(request)`) are set on this request; the
 *   firewall's ContextListener stores the member in the session when the response is sent (under the
 *   firewall context's key, so firewalls with other contexts do not see it).
 * - `rememberMe: true` adds an encrypted (APP_SECRET), HttpOnly remember-me cookie to the response,
 *   accepted later only by firewalls of this firewall's context. Each later remember-me login re-checks
 *   the member with `createApp({ refreshMember })`; without it, with `createApp({ verifyBearerToken })`,
 *   the `irmsToken` given here goes through that verifier, and one that knows only API tokens rejects
 *   and clears the cookie (NOTICE "…rejected by verifyBearerToken…"): pass `refreshMember` as well.
 *
 * The route must be behind a stateful firewall (the default `main` or `admin`, not `dev`, not a
 * `stateless` one); otherwise this throws. With an asynchronous session store, the session is loaded
 * by the firewall before controllers run, so no extra await is needed.
 */
export function logIn(request: KernelRequest, credentials: LoginCredentials): Member {
  const context = statefulContextOf(request);
  if (context === null) {
    throw new Error('logIn() needs a route behind a stateful firewall (this request has none: `security: false`, a stateless firewall or route, or no firewall matched).');
  }
  const member = withHierarchy(request, toMember({ memberId: credentials.memberId, irmsToken: credentials.irmsToken, roles: credentials.roles ?? [] }, 'login'));
  if (member === null) throw new TypeError('logIn() needs a non-empty string memberId, a string irmsToken and string roles.');
  const session = request.getSession();
  session.migrate();
  // CsrfTokenClearingLoginListener (Symfony 5.4.20, CVE-2022-24895): tokens issued before the login
  // (to the anonymous visitor, maybe planted with the session) are not valid after it.
  clearCsrfTokens(session);
  const attributes = request.attributes;
  attributes.set(TOKEN_ATTRIBUTE, member);
  attributes.set(IRMS_TOKEN_ATTRIBUTE, member.irmsToken);
  attributes.set(MEMBER_ID_ATTRIBUTE, member.memberId);
  if (credentials.rememberMe) attributes.set(REMEMBER_ME_COOKIE_ATTRIBUTE, { action: 'set', member, context } satisfies RememberMeCookieAction);
  // A remember-me login earlier in this request renews its cookie; that renewal is for the member
  // logged in before, not for this login, which did not ask to be remembered.
  else if ((attributes.get(REMEMBER_ME_COOKIE_ATTRIBUTE) as RememberMeCookieAction | undefined)?.action === 'set') attributes.remove(REMEMBER_ME_COOKIE_ATTRIBUTE);
  request.logger.info('security', 'Member "{member_id}" logged in.', { member_id: member.memberId });
  return member;
}

/**
 * Logs the member out: the session is emptied and gets a new id (its cookie is cleared), the
 * remember-me cookie is cleared, and the rest of this request is anonymous.
 */
export function logOut(request: KernelRequest): void {
  if (request.hasSession() && (request.sessionIfCreated !== null || request.cookieHeader !== null)) {
    request.getSession().invalidate();
  }
  const attributes = request.attributes;
  attributes.set(TOKEN_ATTRIBUTE, null);
  attributes.set(IRMS_TOKEN_ATTRIBUTE, '');
  attributes.set(MEMBER_ID_ATTRIBUTE, '');
  attributes.set(REMEMBER_ME_COOKIE_ATTRIBUTE, { action: 'clear' } satisfies RememberMeCookieAction);
}

/**
 * The logout path of the request's firewall (Symfony's logout_path()), or null when it has none. A
 * `logoutPath` that is a route name gives that route's path, as LogoutUrlGenerator generates it: with no
 * parameters but the locale, so a route that needs others (or no such route) throws, as the router
 * throws there — a link written as the bare name would lead nowhere and log no one out.
 */
export function logoutUrl(request: KernelRequest): string | null {
  const path = request.attributes.get(LOGOUT_PATH_ATTRIBUTE);
  if (typeof path !== 'string') return null;
  // LogoutUrlGenerator with a csrf_token_generator: the token goes along as `_csrf_token`.
  const tokenId = request.attributes.get(LOGOUT_CSRF_TOKEN_ID_ATTRIBUTE);
  const params: Record<string, string> = typeof tokenId === 'string' ? { _csrf_token: csrfToken(request, tokenId) } : {};
  if (path[0] !== '/') return request.generateUrl(path, params);
  return typeof tokenId === 'string' ? `${path}?_csrf_token=${encodeURIComponent(params._csrf_token!)}` : path;
}
