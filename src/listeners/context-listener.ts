import type { ResponseEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';
import { isStatelessRoute } from '../security/authenticator.ts';
import { FIREWALL_CONTEXT_ATTRIBUTE, sessionKey, storedMember, TOKEN_ATTRIBUTE, type Member, type StoredMember } from '../security/member.ts';
import { hasSessionCookie } from './session-listener.ts';

/**
 * Symfony's ContextListener::onKernelResponse for one stateful firewall context (the app has one
 * instance per context, hence one entry per context in kernel.response). Main request only, and only
 * when this context's firewall authenticated the request (its token is settled) on a route that is not
 * `stateless`:
 * - a member logged in by session, login or remember-me is saved in the session under
 *   `_security_<context>` — only when the stored value differs (nothing to save → session untouched);
 * - a member authenticated by a bearer token is not (API calls create no sessions);
 * - an anonymous request that carried a session cookie has the key removed (after logout); one without
 *   a session cookie never starts a session, so anonymous visitors get no cookie.
 */
export class ContextListener {
  private readonly key: string;

  readonly onKernelResponse;

  /** `ordinal`: 0 for the first stateful context, 1 for the second (CONTRACT §3 names their roles apart). */
  constructor(
    readonly context: string,
    private readonly sessionCookieName: string,
    ordinal = 0,
  ) {
    this.key = sessionKey(context);
    const role = ordinal === 0 ? 'firewall context save' : ordinal === 1 ? 'firewall context save (the second stateful firewall context)' : `firewall context save (stateful firewall context ${ordinal + 1})`;
    this.onKernelResponse = listener<'kernel.response'>('ContextListener::onKernelResponse', role, (event: ResponseEvent) => this.save(event));
  }

  private save(event: ResponseEvent): void {
    const request = event.request;
    if (!request.isMainRequest) return;
    const attributes = request.attributes;
    // Only when this context's firewall ran (its token is settled) on a route that may use the session.
    if (attributes.get(FIREWALL_CONTEXT_ATTRIBUTE) !== this.context || !request.hasSession()) return;
    const member = attributes.get(TOKEN_ATTRIBUTE) as Member | null | undefined;
    if (member === undefined || isStatelessRoute(request)) return;
    if (!member) {
      // ContextListener 5.4: only `if ($request->hasPreviousSession())`. A session this request merely
      // created (a controller's getSession()) holds no token to forget, and looking would count as a use
      // of it: the page of an anonymous visitor without a cookie was answered private.
      if (hasSessionCookie(request, this.sessionCookieName)) {
        const session = request.getSession();
        if (session.has(this.key)) session.remove(this.key);
      }
      return;
    }
    if (member.authenticatedBy === 'bearer') return;
    const session = request.getSession();
    const value = storedMember(member);
    if (sameMember(session.get(this.key), value)) return;
    session.set(this.key, value);
    request.logger.debug('security', 'Stored the security token in the session.', { key: this.key });
  }
}

function sameMember(stored: unknown, value: StoredMember): boolean {
  if (!stored || typeof stored !== 'object') return false;
  const s = stored as Record<string, unknown>;
  return s.memberId === value.memberId && s.rememberMe === value.rememberMe && s.irmsToken === value.irmsToken && Array.isArray(s.roles) && s.roles.length === value.roles.length && s.roles.every((r, i) => r === value.roles[i]);
}
