/**
 * HMAC-SHA256 signing with the app secret (`APP_SECRET`), on Web Crypto so it works on every Fetch host
 * (Node, Deno, workers). Every signature covers a purpose label, so a value signed for one use (a
 * remember-me cookie) is never accepted for another (a bearer token).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function base64UrlDecode(text: string): Uint8Array<ArrayBuffer> | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
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

export class Signer {
  private key: Promise<CryptoKey> | undefined;

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
}
