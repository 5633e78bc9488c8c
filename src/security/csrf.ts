import type { KernelRequest } from '../http/request.ts';
import type { Session } from '../http/session.ts';
import { base64UrlDecode, base64UrlEncode } from './signing.ts';

/**
 * Symfony's CsrfTokenManager (5.4) with its session storage: one random token per id (`authenticate`,
 * `delete-item`), kept in the session under `_csrf/<namespace><id>` — the namespace `https-` on secure
 * requests, so a token issued over HTTP is not valid over HTTPS — and compared in constant time. Twig's
 * `csrf_token('authenticate')` is `csrfToken(request, 'authenticate')`; AbstractController's
 * `isCsrfTokenValid('authenticate', $token)` is `isCsrfTokenValid(request, 'authenticate', token)`.
 * The route must have a session (behind a stateful firewall or with none: not a `stateless` one).
 *
 * As since Symfony 5.3, the token handed out is the stored one masked with a fresh random key each time
 * (`<padding>.<key>.<token XOR key>`): a page that prints it never repeats the secret's bytes, which
 * is what BREACH reads through HTTP compression. Both the masked and the bare token are accepted.
 */
export const CSRF_SESSION_PREFIX = '_csrf/';

function sessionKey(request: KernelRequest, id: string): string {
  return `${CSRF_SESSION_PREFIX}${request.isSecure() ? 'https-' : ''}${id}`;
}

/** UriSafeTokenGenerator: 256 random bits, base64url without padding. */
function generateToken(): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(32)));
}

const utf8 = new TextEncoder();

/** CsrfTokenManager::randomize: the token XOR a fresh 32-byte key, behind a padding of random length (1–32). */
function randomize(token: string): string {
  const key = new Uint8Array(32);
  crypto.getRandomValues(key);
  const value = utf8.encode(token);
  for (let i = 0; i < value.length; i++) value[i] = value[i]! ^ key[i % key.length]!;
  // Symfony's padding is a prefix of md5(key) in hex; only its length matters, so hex of the key serves.
  let padding = '';
  for (let i = 0; i < 16; i++) padding += key[i]!.toString(16).padStart(2, '0');
  return `${padding.slice(0, 1 + (key[0]! % 32))}.${base64UrlEncode(key)}.${base64UrlEncode(value)}`;
}

/** CsrfTokenManager::derandomize: the bytes the client's value stands for (a bare token is itself); null for a broken mask. */
function derandomize(value: string): Uint8Array | null {
  const parts = value.split('.');
  if (parts.length !== 3) return utf8.encode(value);
  const key = base64UrlDecode(parts[1]!);
  const masked = base64UrlDecode(parts[2]!);
  if (key === null || key.length === 0 || masked === null) return null;
  for (let i = 0; i < masked.length; i++) masked[i] = masked[i]! ^ key[i % key.length]!;
  return masked;
}

/** The token for `id`: the one already in the session, else a new one stored there (CsrfTokenManager::getToken). */
export function csrfToken(request: KernelRequest, id: string): string {
  const session = request.getSession();
  const key = sessionKey(request, id);
  const stored = session.get(key);
  if (typeof stored === 'string' && stored !== '') return randomize(stored);
  const token = generateToken();
  session.set(key, token);
  return randomize(token);
}

/** A new token for `id`, replacing the stored one (CsrfTokenManager::refreshToken). */
export function refreshCsrfToken(request: KernelRequest, id: string): string {
  const token = generateToken();
  request.getSession().set(sessionKey(request, id), token);
  return randomize(token);
}

/**
 * Forgets the token of `id` (CsrfTokenManager::removeToken); the next csrfToken() makes a new one.
 * Answers the token that was stored (unmasked), or null when there was none, as removeToken does.
 */
export function removeCsrfToken(request: KernelRequest, id: string): string | null {
  const session = request.getSession();
  const key = sessionKey(request, id);
  if (!session.has(key)) return null;
  const stored = session.get(key);
  session.remove(key);
  return typeof stored === 'string' ? stored : null;
}

/**
 * Forgets every CSRF token of the session (SessionTokenStorage::clear). SessionAuthenticationStrategy
 * calls it whenever a login migrates the session (Symfony 5.4.20, CVE-2022-24895), whichever
 * authenticator logged the member in: tokens issued to the anonymous visitor, maybe planted with the
 * session, must not be valid in the member's.
 */
export function clearCsrfTokens(session: Session): void {
  for (const key of Object.keys(session.all())) if (key.startsWith(CSRF_SESSION_PREFIX)) session.remove(key);
}

/**
 * Whether `value` (a form field's, a header's) is the session's token for `id`; false when none was
 * issued, and for anything that is not a string. Compared in constant time (hash_equals).
 */
export function isCsrfTokenValid(request: KernelRequest, id: string, value: unknown): boolean {
  if (typeof value !== 'string' || value === '') return false;
  const stored = request.getSession().get(sessionKey(request, id));
  if (typeof stored !== 'string' || stored === '') return false;
  const given = derandomize(value);
  return given !== null && constantTimeEqual(utf8.encode(stored), given);
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
