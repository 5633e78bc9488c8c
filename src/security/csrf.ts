import type { KernelRequest } from '../http/request.ts';

/**
 * Symfony's CsrfTokenManager (5.4) with its session storage: one random token per id (`authenticate`,
 * `delete-item`), kept in the session under `_csrf/<namespace><id>` — the namespace `https-` on secure
 * requests, so a token issued over HTTP is not valid over HTTPS — and compared in constant time. Twig's
 * `csrf_token('authenticate')` is `csrfToken(request, 'authenticate')`; AbstractController's
 * `isCsrfTokenValid('authenticate', $token)` is `isCsrfTokenValid(request, 'authenticate', token)`.
 * The route must have a session (behind a stateful firewall or with none: not a `stateless` one).
 */
const SESSION_PREFIX = '_csrf/';

function sessionKey(request: KernelRequest, id: string): string {
  return `${SESSION_PREFIX}${request.isSecure() ? 'https-' : ''}${id}`;
}

/** UriSafeTokenGenerator: 256 random bits, base64url without padding. */
function generateToken(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The token for `id`: the one already in the session, else a new one stored there (CsrfTokenManager::getToken). */
export function csrfToken(request: KernelRequest, id: string): string {
  const session = request.getSession();
  const key = sessionKey(request, id);
  const stored = session.get(key);
  if (typeof stored === 'string' && stored !== '') return stored;
  const token = generateToken();
  session.set(key, token);
  return token;
}

/** A new token for `id`, replacing the stored one (CsrfTokenManager::refreshToken). */
export function refreshCsrfToken(request: KernelRequest, id: string): string {
  const token = generateToken();
  request.getSession().set(sessionKey(request, id), token);
  return token;
}

/** Forgets the token of `id` (CsrfTokenManager::removeToken); the next csrfToken() makes a new one. */
export function removeCsrfToken(request: KernelRequest, id: string): void {
  const session = request.getSession();
  const key = sessionKey(request, id);
  if (session.has(key)) session.remove(key);
}

/**
 * Whether `value` (a form field's, a header's) is the session's token for `id`; false when none was
 * issued, and for anything that is not a string. Compared in constant time (hash_equals).
 */
export function isCsrfTokenValid(request: KernelRequest, id: string, value: unknown): boolean {
  if (typeof value !== 'string' || value === '') return false;
  const stored = request.getSession().get(sessionKey(request, id));
  return typeof stored === 'string' && stored !== '' && constantTimeEqual(stored, value);
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
