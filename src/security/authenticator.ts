import type { KernelRequest } from '../http/request.ts';
import { hasSessionCookie } from '../listeners/session-listener.ts';
import { startSession } from '../session/session.ts';
import { clearCsrfTokens } from './csrf.ts';
import type { Firewall, FirewallMap } from './firewall-map.ts';
import type { BearerVerifier, MemberRefresher } from './member-token.ts';
import {
  FIREWALL_ATTRIBUTE,
  FIREWALL_CONTEXT_ATTRIBUTE,
  REMEMBER_ME_COOKIE_ATTRIBUTE,
  sessionKey,
  TOKEN_ATTRIBUTE,
  storedAuthentication,
  toMember,
  type Member,
} from './member.ts';
import type { Signer } from './signing.ts';

export const REMEMBER_ME_PURPOSE = 'irms-remember-me';

/**
 * What RememberMeResponseListener does with the remember-me cookie. `context` is the firewall context
 * the member logged in to: the cookie is only accepted again by a firewall of that context.
 */
export type RememberMeCookieAction = { action: 'set'; member: Member; context: string } | { action: 'clear' };

/** The decrypted remember-me cookie: member (`m`, `t`, `r`), firewall context (`c`), expiry (`e`, Unix seconds). */
export interface RememberMePayload {
  m: string;
  t: string;
  r: readonly string[];
  c: string;
  e: number;
}

export interface AuthenticatorOptions {
  map: FirewallMap;
  signer: Signer;
  verifier: BearerVerifier;
  /** Re-checks a member read back from the session (null: accepted as stored). */
  refreshSessionMember: MemberRefresher | null;
  /** Re-checks a member a remember-me cookie restores (null: accepted as stored). */
  refreshRememberedMember: MemberRefresher | null;
  sessionCookieName: string;
  rememberMeCookieName: string;
  /** LOGIN_PATH: the entry point of firewalls without a `loginPath` of their own ('' = a 401). */
  loginPath: string;
}

const BEARER = /^Bearer[ \t]+([^\s]{1,4096})[ \t]*$/i;

/**
 * The firewall's authentication listeners, run once per request: an `Authorization: Bearer` token
 * (checked by the configured verifier), then — for stateful firewalls and routes not declared
 * `stateless` — the member kept in the session (read only when the request carries the session
 * cookie), then an encrypted remember-me cookie issued by a firewall of the same context. The
 * outcome is the request's token (`_security_token`: a Member or null). Requests carrying neither an
 * Authorization header nor one of those cookies are settled synchronously without reading anything else.
 */
export class Authenticator {
  /**
   * Why a remembered member was refused, for the NOTICE. A remember-me refresher without a session one is
   * the app's `verifyBearerToken` (app/services.ts: given, and no `refreshMember`). Such a verifier often
   * knows API tokens only, and then every form login's cookie is refused: the log must say why.
   */
  private readonly refusedBy: string;

  constructor(private readonly options: AuthenticatorOptions) {
    this.refusedBy = options.refreshSessionMember === null && options.refreshRememberedMember !== null
      ? 'its irms_token was rejected by verifyBearerToken; pass refreshMember to check remember-me members yourself'
      : 'its member was rejected by refreshMember';
  }

  /** The firewall FirewallListener chose for the request (matched now if it did not run). */
  firewallOf(request: KernelRequest): Firewall | null {
    const name = request.attributes.get(FIREWALL_ATTRIBUTE);
    if (typeof name === 'string') return this.options.map.get(name) ?? null;
    const firewall = this.options.map.matchRequest(request);
    this.assign(request, firewall);
    return firewall;
  }

  /** The entry point of the request's firewall: its own login path, else LOGIN_PATH ('' = a 401). */
  loginPathOf(request: KernelRequest): string {
    return this.firewallOf(request)?.loginPath ?? this.options.loginPath;
  }

  /** Records the firewall of a request: `_firewall` (its name, '' for none), `_firewall_context` (stateful ones only). */
  assign(request: KernelRequest, firewall: Firewall | null): void {
    request.attributes.set(FIREWALL_ATTRIBUTE, firewall ? firewall.name : '');
    if (firewall !== null && firewall.context !== '') request.attributes.set(FIREWALL_CONTEXT_ATTRIBUTE, firewall.context);
  }

  /** True once the request's token is settled (member or anonymous). */
  isSettled(request: KernelRequest): boolean {
    return request.attributes.has(TOKEN_ATTRIBUTE);
  }

  /** Settles the request's token; returns a promise only when credentials must be checked asynchronously. */
  authenticate(request: KernelRequest): void | Promise<void> {
    const attributes = request.attributes;
    if (attributes.has(TOKEN_ATTRIBUTE)) return;
    const firewall = this.firewallOf(request);
    if (firewall === null || !firewall.security) {
      attributes.set(TOKEN_ATTRIBUTE, null);
      return;
    }
    const stateful = firewall.context !== '' && !isStatelessRoute(request);
    const authorization = request.source.header('authorization');
    if (authorization === null && !(stateful && this.hasCredentialCookie(request))) {
      attributes.set(TOKEN_ATTRIBUTE, null);
      return;
    }
    return this.withCredentials(request, firewall, authorization, stateful);
  }

  /** The request carries the session cookie or the remember-me cookie (cookies parsed only when a Cookie header exists). */
  private hasCredentialCookie(request: KernelRequest): boolean {
    if (request.cookieHeader === null) return false;
    const cookies = request.cookies;
    return cookies.has(this.options.sessionCookieName) || cookies.has(this.options.rememberMeCookieName);
  }

  private async withCredentials(request: KernelRequest, firewall: Firewall, authorization: string | null, stateful: boolean): Promise<void> {
    let member: Member | null = null;
    if (authorization !== null) member = await this.fromBearer(request, authorization);
    if (member !== null && stateful && hasSessionCookie(request, this.options.sessionCookieName) && request.hasSession()) {
      // The session is not read for a bearer member, but the controller may still log in or out, which
      // rotates it: an asynchronous store must have delivered it by then (logIn and logOut cannot wait).
      await startSession(request);
    }
    if (member === null && stateful) {
      member = await this.fromSession(request, firewall);
      if (member === null) member = await this.fromRememberMe(request, firewall);
    }
    if (!request.attributes.has(TOKEN_ATTRIBUTE)) request.attributes.set(TOKEN_ATTRIBUTE, withHierarchy(request, member));
  }

  private async fromBearer(request: KernelRequest, authorization: string): Promise<Member | null> {
    const m = BEARER.exec(authorization);
    if (m === null) return null;
    const token = m[1];
    const credentials = await this.options.verifier(token, request);
    const member = credentials ? toMember(credentials, 'bearer', token) : null;
    if (member === null) request.logger.notice('security', 'The bearer token was rejected; the request goes on without it (a session or remember-me login may still authenticate it).');
    else request.logger.debug('security', 'Authenticated member "{member_id}" with a bearer token.', { member_id: member.memberId });
    return member;
  }

  private async fromSession(request: KernelRequest, firewall: Firewall): Promise<Member | null> {
    if (!hasSessionCookie(request, this.options.sessionCookieName) || !request.hasSession()) return null;
    await startSession(request);
    const session = request.getSession();
    const key = sessionKey(firewall.context);
    const stored = session.get(key);
    if (stored === undefined) return null;
    const restored = toMember(stored, storedAuthentication(stored));
    if (restored === null) {
      session.remove(key);
      request.logger.warning('security', 'Dropped an unreadable security token from the session.');
      return null;
    }
    request.logger.debug('security', 'Read existing security token from the session.', { key });
    const member = await refreshed(restored, this.options.refreshSessionMember, request);
    if (member === null) {
      // Symfony's ContextListener: the provider no longer knows the user, so the session forgets it.
      session.remove(key);
      request.logger.debug('security', 'Token was deauthenticated after trying to refresh it.', { member_id: restored.memberId });
    }
    return member;
  }

  /**
   * A cookie from another firewall context is ignored, not cleared. In Symfony each firewall has its
   * own remember-me configuration and only reads its own cookie; a member who ticked "remember me" on
   * the site and then opens /admin expects to be asked to log in there, not to lose the site's
   * remember-me (the cookie is shared by path `/`, so clearing it here would log them out of `main`).
   * An unreadable, altered, pre-encryption (signed-only) or expired cookie belongs to nobody: cleared.
   */
  private async fromRememberMe(request: KernelRequest, firewall: Firewall): Promise<Member | null> {
    const value = request.cookies.get(this.options.rememberMeCookieName);
    if (typeof value !== 'string' || value === '') return null;
    // RememberMeAuthenticator::supports: not once this request cleared the cookie (a failed custom login).
    if ((request.attributes.get(REMEMBER_ME_COOKIE_ATTRIBUTE) as RememberMeCookieAction | undefined)?.action === 'clear') return null;
    const payload = rememberMePayload(await this.options.signer.decrypt(REMEMBER_ME_PURPOSE, value));
    if (payload !== null && payload.c !== firewall.context) {
      // (`issuer_context`, not `cookie_context`: a key naming a cookie is masked in logs as a secret.)
      request.logger.debug('security', 'Remember-me cookie of firewall context "{issuer_context}" ignored on context "{context}".', { issuer_context: payload.c, context: firewall.context });
      return null;
    }
    const remembered = payload !== null && payload.e * 1000 > Date.now() ? toMember({ memberId: payload.m, irmsToken: payload.t, roles: payload.r }, 'remember_me') : null;
    // Symfony reloads the user for every remember-me login: a member gone or a revoked irms_token ends it.
    const member = remembered === null ? null : await refreshed(remembered, this.options.refreshRememberedMember, request);
    if (member === null) {
      request.attributes.set(REMEMBER_ME_COOKIE_ATTRIBUTE, { action: 'clear' } satisfies RememberMeCookieAction);
      const reason = remembered === null ? (payload === null ? 'unreadable or altered' : 'expired or malformed') : this.refusedBy;
      request.logger.notice('security', `Remember-me cookie rejected and cleared: ${reason}.`);
      return null;
    }
    if (request.hasSession()) {
      // A remember-me login is a login: the session gets a fresh id before the member is stored in it.
      await startSession(request);
      const session = request.getSession();
      session.migrate();
      // As for logIn(): SessionAuthenticationStrategy clears the CSRF tokens on every login it migrates,
      // the remember-me one included. Kept, the tokens of a session planted before this login (known to
      // whoever planted it) would be valid in the member's session (CVE-2022-24895).
      clearCsrfTokens(session);
    }
    // SignatureRememberMeHandler::processRememberMe ends with createRememberMeCookie: each remember-me
    // login renews the cookie for a full lifetime (of the member as refreshed), so a member who keeps
    // coming back is not logged out by the expiry set at the form login.
    request.attributes.set(REMEMBER_ME_COOKIE_ATTRIBUTE, { action: 'set', member, context: firewall.context } satisfies RememberMeCookieAction);
    request.logger.info('security', 'Remember-me cookie accepted for member "{member_id}".', { member_id: member.memberId });
    return member;
  }
}

/** The member as the application knows it now, or null when `refresh` no longer accepts it (no refresh: as stored). */
async function refreshed(member: Member, refresh: MemberRefresher | null, request: KernelRequest): Promise<Member | null> {
  if (refresh === null) return member;
  const current = await refresh(member, request);
  if (current === null || current === undefined || current.memberId !== member.memberId) return null;
  if (current.roles === undefined) return member;
  return toMember({ memberId: member.memberId, irmsToken: member.irmsToken, roles: current.roles }, member.authenticatedBy);
}

/** A decrypted payload whose member fields are still unchecked (toMember checks them). */
type UncheckedRememberMe = Pick<RememberMePayload, 'c' | 'e'> & { m?: unknown; t?: unknown; r?: unknown };

/** The payload when its context and expiry have the right types, else null. */
function rememberMePayload(value: unknown): UncheckedRememberMe | null {
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (typeof v.c !== 'string' || v.c === '' || typeof v.e !== 'number') return null;
  return { c: v.c, e: v.e, m: v.m, t: v.t, r: v.r };
}

/** The member as the request's token: with its reachable roles when the app has a role hierarchy. */
export function withHierarchy(request: KernelRequest, member: Member | null): Member | null {
  const hierarchy = request.settings.roleHierarchy;
  return member === null || hierarchy === undefined || hierarchy === null ? member : hierarchy.withReachableRoles(member);
}

/** The context of the request's firewall when it keeps its member in the session, on a route that may use it; else null. */
export function statefulContextOf(request: KernelRequest): string | null {
  const context = request.attributes.get(FIREWALL_CONTEXT_ATTRIBUTE);
  return typeof context === 'string' && context !== '' && !isStatelessRoute(request) ? context : null;
}

/** Routes with the `stateless` option never touch the session (Symfony's `_stateless`). */
export function isStatelessRoute(request: KernelRequest): boolean {
  if (request.attributes.get('_stateless') === true) return true;
  const options = request.attributes.get('_route_options') as { stateless?: unknown } | undefined;
  return options !== undefined && options !== null && options.stateless === true;
}
