import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';

/**
 * The login entry point (Symfony's AbstractLoginFormAuthenticator::start): a 302 to the login path, as
 * an absolute URL on this host when the path is one (HttpUtils::generateUri). A `//host` or `/\host`
 * path is left as written, never prefixed into another host's URL.
 */
export function loginRedirect(request: KernelRequest, loginPath: string): HttpResponse {
  return redirectOnHost(request, loginPath);
}

/** HttpUtils::createRedirectResponse: a 302 to `path`, made absolute on this host when it is a path (as above). */
export function redirectOnHost(request: KernelRequest, path: string): HttpResponse {
  const absolute = path[0] === '/' && path[1] !== '/' && path[1] !== '\\' && request.getHost() !== '' ? request.getSchemeAndHttpHost() + path : path;
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
