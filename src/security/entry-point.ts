import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';

/**
 * The login entry point (Symfony's AbstractLoginFormAuthenticator::start): a 302 to the login path, as
 * an absolute URL on this host when the path is one (HttpUtils::generateUri). A `//host` or `/\host`
 * path is left as written, never prefixed into another host's URL.
 */
export function loginRedirect(request: KernelRequest, loginPath: string): HttpResponse {
  const absolute = loginPath[0] === '/' && loginPath[1] !== '/' && loginPath[1] !== '\\' && request.getHost() !== '' ? request.getSchemeAndHttpHost() + loginPath : loginPath;
  return HttpResponse.redirect(absolute, 302);
}

/**
 * True when the entry point redirects this request to `loginPath`: there is one, and the client reads
 * HTML. JSON clients (`Accept` preferring JSON) and XHRs get the 401 instead (README, "requiresLogin
 * and HTML clients").
 */
export function redirectsToLogin(request: KernelRequest, loginPath: string): boolean {
  return loginPath !== '' && !request.prefersJson() && !request.isXmlHttpRequest();
}
