import type { KernelRequest } from '../http/request.ts';
import type { HttpResponse } from '../http/response.ts';
import type { ResponseEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';
import { REMEMBER_ME_PURPOSE, type RememberMeCookieAction, type RememberMePayload } from '../security/authenticator.ts';
import { REMEMBER_ME_COOKIE_ATTRIBUTE } from '../security/member.ts';
import { MAX_SEALED_LENGTH, type Signer } from '../security/signing.ts';
import { assertReadableCookieName } from '../http/cookies.ts';

export interface RememberMeOptions {
  signer: Signer;
  cookieName: string;
  lifetimeSeconds: number;
}

/**
 * Symfony's RememberMe ResponseListener (main request): when a login asked for it
 * (`logIn(request, { rememberMe: true })`), the response gets the remember-me cookie, HttpOnly,
 * SameSite=Lax, Secure on HTTPS. Logout or a rejected cookie clears it (only when the client has one).
 *
 * Symfony's cookie holds no credential, but this one must restore the member's `irms_token` (the API
 * bearer credential), so the payload is encrypted with AES-GCM under a key derived from APP_SECRET:
 * a leaked cookie (proxy log, shared machine) does not reveal the token, and any change is rejected.
 * It also names the firewall context of the login, so a firewall of another context ignores it.
 */
export class RememberMeResponseListener {
  constructor(private readonly options: RememberMeOptions) {
    assertReadableCookieName('rememberMeCookieName (REMEMBER_ME_COOKIE_NAME)', options.cookieName);
  }

  readonly onKernelResponse = listener<'kernel.response'>('RememberMeResponseListener::onKernelResponse', 'remember-me cookie handling', (event: ResponseEvent) => {
    const request = event.request;
    if (!request.isMainRequest) return;
    const action = request.attributes.get(REMEMBER_ME_COOKIE_ATTRIBUTE) as RememberMeCookieAction | undefined;
    if (action === undefined || action === null) return;
    const response = event.response;
    if (action.action === 'clear') {
      if (request.cookieHeader !== null && request.cookies.has(this.options.cookieName)) {
        response.headers.clearCookie(this.options.cookieName, this.cookieOptions(request));
      }
      return;
    }
    return this.setCookie(request, response, action);
  });

  private async setCookie(request: KernelRequest, response: HttpResponse, action: Extract<RememberMeCookieAction, { action: 'set' }>): Promise<void> {
    const { member, context } = action;
    const lifetime = this.options.lifetimeSeconds;
    const payload: RememberMePayload = {
      m: member.memberId,
      t: member.irmsToken,
      r: member.roles,
      c: context,
      e: Math.floor(Date.now() / 1000) + lifetime,
    };
    const value = await this.options.signer.encrypt(REMEMBER_ME_PURPOSE, payload);
    if (this.options.cookieName.length + 1 + value.length > MAX_SEALED_LENGTH) {
      // Browsers drop a cookie over 4 KiB, and one that long would be refused when it came back: a
      // cookie that can never log the member in is not sent (a very long irms_token, such as a big JWT).
      request.logger.warning('security', 'Remember-me cookie not set: it would be {length} characters, over the {limit} a cookie may hold (the irms_token is too long); the member stays logged in through the session only.', {
        length: this.options.cookieName.length + 1 + value.length,
        limit: MAX_SEALED_LENGTH,
      });
      if (request.cookieHeader !== null && request.cookies.has(this.options.cookieName)) {
        response.headers.clearCookie(this.options.cookieName, this.cookieOptions(request));
      }
      return;
    }
    response.headers.setCookie(this.options.cookieName, value, { ...this.cookieOptions(request), maxAge: lifetime });
  }

  private cookieOptions(request: KernelRequest) {
    return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: request.isSecure() };
  }
}
