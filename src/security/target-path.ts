import type { KernelRequest } from '../http/request.ts';
import { startSession } from '../session/session.ts';
import { statefulContextOf } from './authenticator.ts';
import { isLocalPath } from './entry-point.ts';
import { FIREWALL_ATTRIBUTE } from './member.ts';

/**
 * Symfony's TargetPathTrait: where an anonymous visitor was going when the firewall sent them to the
 * login page, kept in the session under `_security.<firewall>.target_path` so the login controller can
 * send them back. The firewall's name is the one of the protected route (the key Symfony uses), not
 * necessarily the login route's: pass it when the two differ.
 */

/** Characters of a URL kept as the way back: far beyond a page's address, far below the session's size bound. */
const MAX_TARGET_PATH = 8192;

function key(firewall: string): string {
  return `_security.${firewall}.target_path`;
}

function firewallOf(request: KernelRequest): string {
  const name = request.attributes.get(FIREWALL_ATTRIBUTE);
  return typeof name === 'string' ? name : '';
}

/**
 * ExceptionListener::setTargetPath (5.4), run when the entry point redirects to the login path: only on
 * stateful firewalls, for safe methods (the visitor can be sent back there with a GET) and not for XHRs.
 * The session is loaded first when its store answers asynchronously. A store that fails to load it
 * costs the visitor only the way back: the redirect to the login page is still answered.
 */
export function saveTargetPath(request: KernelRequest): void | Promise<void> {
  const firewall = firewallOf(request);
  if (firewall === '' || statefulContextOf(request) === null) return;
  if (!request.isMethodSafe() || request.isXmlHttpRequest() || !request.hasSession()) return;
  try {
    const uri = request.getUri();
    // The session has a size bound (the store refuses, a 500): a URL past this one costs the visitor only the way back.
    if (uri.length > MAX_TARGET_PATH) return;
    const save = () => request.getSession().set(key(firewall), uri);
    const pending = startSession(request);
    if (pending) return pending.then(save, () => undefined);
    save();
  } catch {
    // as above: the redirect matters more than the way back
  }
}

/**
 * The URL an anonymous visitor of `firewall` (default: this request's) was sent to the login page from,
 * or null. Read it in your login controller after logIn() to send the member back, then removeTargetPath():
 *
 * ```ts
 * logIn(request, { memberId, irmsToken });
 * const back = getTargetPath(request);
 * removeTargetPath(request);
 * return HttpResponse.redirect(back ?? '/');
 * ```
 */
export function getTargetPath(request: KernelRequest, firewall: string = firewallOf(request)): string | null {
  if (firewall === '' || !request.hasSession()) return null;
  const value = request.getSession().get(key(firewall));
  return typeof value === 'string' && onThisHost(request, value) ? value : null;
}

/**
 * The domain check of HttpUtils::createRedirectResponse (CVE-2017-16652), which Symfony's success handler
 * applies to the target path before redirecting there; here the application redirects itself, so the check
 * is made where it reads the path. The URL kept names the host the anonymous request named: a session
 * planted in a visitor's browser (fixation) could carry `http://evil.example/` through the login, which
 * keeps the session's data. So only a URL on this request's host counts (https only, on an https request,
 * as with Symfony's `cookie_secure: auto`), or a path not starting with `//` or `/\`, which would name one.
 */
function onThisHost(request: KernelRequest, url: string): boolean {
  const authority = ABSOLUTE_URL.exec(url);
  if (authority === null) return isLocalPath(url);
  const found = authority[0].toLowerCase();
  const host = request.getHttpHost().toLowerCase();
  return found === `https://${host}` || (found === `http://${host}` && !request.isSecure());
}

/** HttpUtils' `#^https?:[/\\]{2,}+[^/]++#i`: the scheme and whatever a browser may read as the authority. */
const ABSOLUTE_URL = /^https?:[/\\]{2,}[^/]+/i;

/** Forgets the target path of `firewall` (default: this request's), as Symfony's success handler does once it used it. */
export function removeTargetPath(request: KernelRequest, firewall: string = firewallOf(request)): void {
  if (firewall === '' || !request.hasSession()) return;
  const session = request.getSession();
  if (session.has(key(firewall))) session.remove(key(firewall));
}
