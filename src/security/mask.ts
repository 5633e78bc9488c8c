/**
 * Masking of secrets before they are logged, profiled or shown (CONTRACT §6.2, §8.5). The profiler
 * imports these too, so every place that displays request data masks the same way.
 */
import { remember } from '../http/remember.ts';

/**
 * Keys whose values are never shown: passwords, secrets, tokens, credentials, cookies, session ids.
 * `pass` alone counts as a whole name or a whole bracket segment (`pass[]`, `user[pass]`), not inside
 * a word (`compass`). `token` counts except as `tokenize`/`tokenise` (`X-Tokenizer-Version`, `tokenizer=icu`
 * name a text tokenizer, not a credential).
 */
const SECRET_KEY = /(?:^|[[\]])_?pass(?:$|[[\]])|pass(?:word|wd|phrase)|secret|token(?!i[sz])|authori[sz]ation|cookie|session|sessid|api[-_]?key|private[-_]?key|credential/i;

/**
 * Beyond SECRET_KEY: a few more spellings of credentials, and the API-key
 * and identity headers of the large gateways (Azure API Management's `Ocp-Apim-Subscription-Key`, Azure
 * Functions' `X-Functions-Key`, Cloudflare's `X-Auth-Key` and `Cf-Access-Jwt-Assertion`, Google IAP's
 * `X-Goog-Iap-Jwt-Assertion`, AWS ALB's `X-Amzn-Oidc-Data`). Short names count only whole (or as a
 * whole bracket segment): `auth`, `sid` and `sig` (an Azure SAS URL's signature), not `author`, `side`
 * or `signal`. A bare `key` is deliberately not a secret: it would hide every harmless `key=` (cache
 * keys, sort keys, i18n keys) to catch a Google API key (see the README).
 *
 * The whole name policy (isSecretKey; README's "Secrets in logs" lists it):
 * - any name containing `password`/`passwd`/`passphrase`, `secret` (`client_secret`), `token`
 *   (`access_token`, `refresh_token`, `id_token`, `_csrf_token`, `X-Auth-Token`), `authorization`
 *   (`Proxy-Authorization`), `cookie` (`Set-Cookie`), `session`, `sessid`, `api_key`/`apikey`
 *   (`X-Api-Key`), `private_key`, `access_key`, `credential`, `passcode`, `pwd`, `csrf`, `xsrf`,
 *   `signature`, `remember_me` (Symfony's `REMEMBERME` cookie, a login in itself), `card_number`,
 *   `cc_number`, `security_code`, `mfa_code`, `2fa_code`, `verification_code`, `recovery_code`,
 *   `backup_code`, `code_verifier` (PKCE), `client_assertion` (a signed client login), `jwt` (`X-JWT`,
 *   `Cf-Access-Jwt-Assertion`), `SAMLResponse` (a signed login), `hmac` (a webhook's signature);
 * - `pass`, `auth`, `sid`, `sig` whole or as a bracket segment (`user[pass]`);
 * - one-time and card codes as a whole segment, between `_`, `-`, `.`, brackets or a camelCase
 *   boundary: `otp`, `totp`, `hotp`, `pin`, `cvv`, `cvc`, `cvv2`, `cvc2` (`otp_code`, `user[pin]`,
 *   `cardCvv`, not `option`, `spinner` or `shopping`);
 * - as a request parameter only (query, body, a URL's query; isSecretParameter): OAuth's `code`;
 * - headers (the profiler's maskHeaders): the above, and `DPoP` (RFC 9449's proof).
 */
const MORE_SECRET_NAMES =
  /passcode|pwd|apikey|access[-_]?key|authoriz|sessid|csrf|xsrf|signature|remember[-_]?me|card[-_]?num|credit[-_]?card|cc[-_]?num|(?:security|verification|recovery|backup|mfa|2fa)[-_]?code|code[-_]?verifier|client[-_]?assertion|subscription[-_]?key|functions[-_]?key|jwt|saml[-_]?response|hmac|oidc[-_]?data|^x-auth-key$|(?:^|[[\]])(?:auth|sid|sig)(?:$|[[\]])/i;
/** One-time and card codes, as a whole segment of a name (`otp`, `mfa_otp`, `user[pin]`, `PIN`). */
const CODE_SEGMENT = /(?:^|[[\]_.-])(?:t?otp|hotp|pin|cv[vc]2?)(?:$|[[\]_.-])/i;
/** The same codes at a camelCase boundary (`otpCode`, `userPin`, `cardCVV`); case-sensitive, so not `option` or `spinner`. */
const CODE_CAMEL = /^(?:t?otp|hotp|pin|cv[vc]2?)[A-Z0-9]|[a-z0-9](?:T?Otp|T?OTP|Hotp|HOTP|Pin|PIN|Cv[vc]|CV[VC])(?:$|[^a-z])/;

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
  if (key.length > MAX_CACHED_KEY_LENGTH) return testSecretKey(key);
  let secret = secretKeyCache.get(key);
  if (secret === undefined) {
    secret = testSecretKey(key);
    remember(secretKeyCache, MAX_CACHED_KEYS, key, secret);
  }
  return secret;
}

function testSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) || MORE_SECRET_NAMES.test(key) || CODE_SEGMENT.test(key) || CODE_CAMEL.test(key);
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

/** Own data property, also for `__proto__` (plain assignment would set the prototype). */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
