/**
 * Masking of secrets before they are logged, profiled or shown (CONTRACT §6.2, §8.5). The profiler
 * imports these too, so every place that displays request data masks the same way.
 */

/**
 * Keys whose values are never shown: passwords, secrets, tokens, credentials, cookies, session ids.
 * `pass` alone counts as a whole name or a whole bracket segment (`pass[]`, `user[pass]`), not inside
 * a word (`compass`).
 */
const SECRET_KEY = /(?:^|[[\]])_?pass(?:$|[[\]])|pass(?:word|wd|phrase)|secret|token|authori[sz]ation|cookie|session|sessid|api[-_]?key|private[-_]?key|credential/i;

export const MASK = '***';

/** A value masking already hid: the mask, or a token cut to its first characters by maskToken (`tok-…`). */
export function isMaskedValue(value: unknown): boolean {
  return value === MASK || (typeof value === 'string' && value.endsWith('…') && value.length <= 9 && Array.from(value).length <= 5);
}

/** A token shown as its first 4 characters plus `…`; '' stays '' (anonymous). */
export function maskToken(token: string | null | undefined): string {
  if (!token) return '';
  return `${Array.from(token).slice(0, 4).join('')}…`;
}

/** Answers for short keys already tested: the same few names come back on every request (bounded). */
const secretKeyCache = new Map<string, boolean>();
const MAX_CACHED_KEYS = 2048;
const MAX_CACHED_KEY_LENGTH = 64;

/** True when a key names a secret (`password`, `_password`, `irms_token`, `Authorization`, `PHPSESSID`...). */
export function isSecretKey(key: string): boolean {
  if (key.length > MAX_CACHED_KEY_LENGTH) return SECRET_KEY.test(key);
  let secret = secretKeyCache.get(key);
  if (secret === undefined) {
    secret = SECRET_KEY.test(key);
    if (secretKeyCache.size >= MAX_CACHED_KEYS) secretKeyCache.clear();
    secretKeyCache.set(key, secret);
  }
  return secret;
}

/**
 * A copy of `value` with the values of secret-named keys replaced by `***`, at any depth (bounded:
 * depth 16, 1000 entries per object or array). Objects are rebuilt without touching any prototype, so
 * a `__proto__` key stays a plain key of the copy.
 */
export function maskSecrets<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 16) return '[...]' as unknown as T;
  if (Array.isArray(value)) return value.slice(0, 1000).map((v) => maskSecrets(v, depth + 1)) as unknown as T;
  if (value instanceof Date) return value;
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const [k, v] of value) {
      if (n++ >= 1000) break;
      defineOwn(out, String(k), isSecretKey(String(k)) ? MASK : maskSecrets(v, depth + 1));
    }
    return out as unknown as T;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key of Object.keys(value)) {
    if (n++ >= 1000) break;
    const v = (value as Record<string, unknown>)[key];
    defineOwn(out, key, isSecretKey(key) && v !== '' && v !== null && v !== undefined ? MASK : maskSecrets(v, depth + 1));
  }
  return out as unknown as T;
}

/** `Set-Cookie` / `Cookie` values masked, names and attributes kept: `SID=***; path=/; httponly`. */
export function maskSetCookie(line: string): string {
  const eq = line.indexOf('=');
  if (eq < 0) return line;
  const semi = line.indexOf(';', eq);
  return `${line.slice(0, eq + 1)}${MASK}${semi < 0 ? '' : line.slice(semi)}`;
}

/** Own data property, also for `__proto__` (plain assignment would set the prototype). */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
