import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';

/**
 * HttpUtils::createRedirectResponse: a 302 to generateUri(path). The login entry point
 * (AbstractLoginFormAuthenticator::start) and the logout's target redirect through it.
 */
export function redirectOnHost(request: KernelRequest, path: string): HttpResponse {
  return HttpResponse.redirect(generateUri(request, path), 302);
}

/**
 * HttpUtils::generateUri: a URL as it is; a path made absolute on this host (a `//host` or `/\host` path
 * left as written, never prefixed into another host's URL); anything else is a route name, as Symfony's
 * `login_path: app_login` and `logout: path: app_logout` are, made an absolute URL to that route. Every such
 * name is a route's (the app refuses others when it is built, app/security-paths.ts). A route that cannot be
 * made from this request's attributes throws the generator's error (MissingMandatoryParametersException), as
 * HttpUtils does: a `Location: app_login`, resolved next to the page, led nowhere without a word.
 */
export function generateUri(request: KernelRequest, path: string): string {
  if (path[0] === '/') return isLocalPath(path) && request.getHost() !== '' ? request.getSchemeAndHttpHost() + path : path;
  if (!namesRoute(path)) return path;
  return withoutQuery(request.generateUrl(path, scalarAttributes(request), { absolute: true }));
}

/**
 * HttpUtils generates the route with the request's attributes as parameters, so a login route under
 * `/{tenant}/` gets this request's tenant. Only scalars: an object attribute (the member) could be no
 * path value anyway, and would only be spelled out into the query string dropped below.
 */
function scalarAttributes(request: KernelRequest): Record<string, unknown> {
  const params = request.attributes.all();
  for (const key of Object.keys(params)) {
    const value = params[key];
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') delete params[key];
  }
  return params;
}

/** The attributes that are no path variable became the query string: HttpUtils drops it, keeping a fragment. */
function withoutQuery(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const fragment = url.indexOf('#', query);
  return url.slice(0, query) + (fragment < 0 ? '' : url.slice(fragment));
}

/** A path on this host: `/…`, but not `//host` or `/\\host`, which a browser reads as another host. */
export function isLocalPath(path: string): boolean {
  return path[0] === '/' && path[1] !== '/' && path[1] !== '\\';
}

/** Whether generateUri reads `path` as a route name: neither a path, a URL nor empty. */
export function namesRoute(path: string): boolean {
  return path !== '' && path[0] !== '/' && !URL_SCHEME.test(path);
}

/** `https:`, `mailto:`…: a URL, not a route name (HttpUtils tests `http(s)://`; any scheme is no route name here). */
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * True when the entry point redirects this request to `loginPath`: there is one, and the client reads
 * HTML. JSON clients (`Accept` preferring JSON) and XHRs get the 401 instead (README, "requiresLogin
 * and HTML clients").
 */
export function redirectsToLogin(request: KernelRequest, loginPath: string): boolean {
  return loginPath !== '' && !request.prefersJson() && !request.isXmlHttpRequest();
}
