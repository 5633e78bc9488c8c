/**
 * Signing (HMAC-SHA256) and authenticated encryption (AES-256-GCM) with the app secret (`APP_SECRET`),
 * on Web Crypto so it works on every Fetch host (Node, Deno, workers). Every value is bound to a
 * purpose label, so a value sealed for one use (a remember-me cookie) is never accepted for another
 * (a bearer token). Sign what the holder may read (bearer claims); encrypt what they must not see in
 * clear when the value leaks (a credential inside a long-lived cookie).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The bytes of a canonical base64url text, or null. Canonical: the unused low bits of the last
 * character are zero, so each byte string has exactly one text. Otherwise `…AB` and `…AA` name the same
 * signature: an altered token would still verify, and one token would have several spellings.
 */
export function base64UrlDecode(text: string): Uint8Array<ArrayBuffer> | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
  const spare = text.length % 4 === 2 ? 0b1111 : text.length % 4 === 3 ? 0b11 : 0;
  if (spare !== 0 && (BASE64URL_ALPHABET.indexOf(text[text.length - 1]!) & spare) !== 0) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** Largest sealed value accepted for verification (cookies and headers are small). */
export const MAX_SEALED_LENGTH = 4096;

/** HKDF salt: separates the encryption keys from the HMAC key although both come from APP_SECRET. */
const ENCRYPTION_SALT = encoder.encode('irms-web/aes-256-gcm');
/** GCM's standard nonce size; random per value, so the same payload never encrypts the same way twice. */
const IV_BYTES = 12;
/** The GCM tag (16 bytes) plus at least one byte of payload. */
const MIN_CIPHERTEXT_BYTES = 17;

export class Signer {
  private key: Promise<CryptoKey> | undefined;
  private readonly encryptionKeys = new Map<string, Promise<CryptoKey>>();

  constructor(private readonly secret: string) {
    if (!secret) throw new Error('A signer needs a non-empty secret (APP_SECRET).');
  }

  private cryptoKey(): Promise<CryptoKey> {
    return (this.key ??= crypto.subtle.importKey('raw', encoder.encode(this.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']));
  }

  /** base64url(payload JSON) + '.' + base64url(HMAC(purpose + '\n' + that)). */
  async seal(purpose: string, payload: unknown): Promise<string> {
    const body = base64UrlEncode(encoder.encode(JSON.stringify(payload)));
    const signature = await crypto.subtle.sign('HMAC', await this.cryptoKey(), encoder.encode(`${purpose}\n${body}`));
    return `${body}.${base64UrlEncode(new Uint8Array(signature))}`;
  }

  /** The payload of a value sealed for `purpose`, or null when it is malformed or its signature is wrong. */
  async unseal(purpose: string, sealed: string): Promise<unknown> {
    if (typeof sealed !== 'string' || sealed.length > MAX_SEALED_LENGTH) return null;
    const dot = sealed.indexOf('.');
    if (dot <= 0 || sealed.indexOf('.', dot + 1) >= 0) return null;
    const body = sealed.slice(0, dot);
    const signature = base64UrlDecode(sealed.slice(dot + 1));
    if (signature === null || signature.byteLength !== 32) return null;
    const ok = await crypto.subtle.verify('HMAC', await this.cryptoKey(), signature, encoder.encode(`${purpose}\n${body}`));
    if (!ok) return null;
    const json = base64UrlDecode(body);
    if (json === null) return null;
    try {
      return JSON.parse(decoder.decode(json)) as unknown;
    } catch {
      return null;
    }
  }

  /** One AES-GCM key per purpose, so a value encrypted for one purpose cannot even be decrypted for another. */
  private encryptionKey(purpose: string): Promise<CryptoKey> {
    let key = this.encryptionKeys.get(purpose);
    if (key === undefined) {
      key = deriveEncryptionKey(this.secret, purpose);
      this.encryptionKeys.set(purpose, key);
    }
    return key;
  }

  /** base64url(iv ‖ AES-256-GCM(payload JSON)), the purpose also authenticated as additional data. */
  async encrypt(purpose: string, payload: unknown): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const plaintext = encoder.encode(JSON.stringify(payload));
    const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(purpose) }, await this.encryptionKey(purpose), plaintext);
    const out = new Uint8Array(IV_BYTES + ciphertext.byteLength);
    out.set(iv);
    out.set(new Uint8Array(ciphertext), IV_BYTES);
    return base64UrlEncode(out);
  }

  /**
   * The payload of a value encrypted for `purpose`, or null when it is malformed, was altered, was
   * encrypted for another purpose or secret, or is a signed-only value (`seal`), never an exception.
   */
  async decrypt(purpose: string, encrypted: string): Promise<unknown> {
    if (typeof encrypted !== 'string' || encrypted.length > MAX_SEALED_LENGTH) return null;
    const bytes = base64UrlDecode(encrypted);
    if (bytes === null || bytes.byteLength < IV_BYTES + MIN_CIPHERTEXT_BYTES) return null;
    let plaintext: ArrayBuffer;
    try {
      const iv = bytes.subarray(0, IV_BYTES);
      plaintext = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(purpose) }, await this.encryptionKey(purpose), bytes.subarray(IV_BYTES));
    } catch {
      return null;
    }
    try {
      return JSON.parse(decoder.decode(plaintext)) as unknown;
    } catch {
      return null;
    }
  }
}

/** HKDF-SHA256(APP_SECRET) with the purpose as `info`: a full-strength AES key whatever the secret's length. */
async function deriveEncryptionKey(secret: string, purpose: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: ENCRYPTION_SALT, info: encoder.encode(purpose) },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}
