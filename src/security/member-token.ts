import type { KernelRequest } from '../http/request.ts';
import { Signer } from './signing.ts';
import { remember } from '../http/remember.ts';

/** What a bearer-token verifier answers for a valid token. */
export interface MemberCredentials {
  memberId: string;
  roles?: readonly string[];
}

/**
 * Checks the `<irms_token>` of `Authorization: Bearer <irms_token>`: the member it stands for, or null
 * when it is not valid. Configure with `createApp({ verifyBearerToken })`; the default accepts tokens
 * made by `signMemberToken` with the app's secret.
 */
export type BearerVerifier = (token: string, request: KernelRequest) => MemberCredentials | null | Promise<MemberCredentials | null>;

/**
 * Symfony's user provider refresh (`refreshUser`): the member as the application knows it now, asked
 * for a member restored from the session or from a remember-me cookie. Answer its current credentials
 * (`roles`, when given, replace the stored ones) or null when the member is gone or its irms_token was
 * revoked: the request then continues as anonymous, the session forgets the member and a remember-me
 * cookie is cleared. An answer naming another member counts as null.
 */
export type MemberRefresher = (
  member: { readonly memberId: string; readonly irmsToken: string; readonly roles: readonly string[] },
  request: KernelRequest,
) => MemberCredentials | null | Promise<MemberCredentials | null>;

export interface MemberTokenClaims {
  memberId: string;
  roles?: readonly string[];
  /** Lifetime in seconds (default: 1 hour). */
  expiresIn?: number;
}

const PURPOSE = 'irms-member-token';
const signers = new Map<string, Signer>();

/** The signer for a secret, an app (`app.config.secret`) or a Signer. */
export function signerFor(key: string | Signer | { config: { secret: string } }): Signer {
  if (key instanceof Signer) return key;
  const secret = typeof key === 'string' ? key : key.config.secret;
  let signer = signers.get(secret);
  if (!signer) {
    remember(signers, 16, secret, (signer = new Signer(secret)));
  }
  return signer;
}

/**
 * Makes an `irms_token` for API clients: an HMAC-SHA256-signed token (with the app secret, APP_SECRET)
 * naming the member, its roles and an expiry. Send it as `Authorization: Bearer <token>`.
 *
 * @example
 * const token = await signMemberToken(app, { memberId: '42', roles: ['ROLE_ADMIN'], expiresIn: 3600 });
 * await app.fetch(new Request(url, { headers: { authorization: `Bearer ${token}` } }));
 */
export async function signMemberToken(key: string | Signer | { config: { secret: string } }, claims: MemberTokenClaims): Promise<string> {
  if (typeof claims.memberId !== 'string' || claims.memberId === '') throw new TypeError('signMemberToken needs a non-empty memberId.');
  const expiresIn = claims.expiresIn ?? 3600;
  return signerFor(key).seal(PURPOSE, { m: claims.memberId, r: claims.roles ?? [], e: Math.floor(Date.now() / 1000) + expiresIn });
}

/** The member a token made by `signMemberToken` stands for, or null (bad signature, expired, malformed). */
export async function verifyMemberToken(key: string | Signer | { config: { secret: string } }, token: string): Promise<MemberCredentials | null> {
  const payload = (await signerFor(key).unseal(PURPOSE, token)) as { m?: unknown; r?: unknown; e?: unknown } | null;
  if (!payload || typeof payload !== 'object') return null;
  if (typeof payload.m !== 'string' || payload.m === '') return null;
  if (typeof payload.e !== 'number' || payload.e * 1000 <= Date.now()) return null;
  if (!Array.isArray(payload.r) || !payload.r.every((r) => typeof r === 'string')) return null;
  return { memberId: payload.m, roles: payload.r as string[] };
}

/** The default verifier: tokens signed with this app's secret. */
export function defaultBearerVerifier(signer: Signer): BearerVerifier {
  return (token) => verifyMemberToken(signer, token);
}
