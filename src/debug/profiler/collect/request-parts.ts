/**
 * The parts of a profile read from the request that masking must see first: headers (the last set
 * that masking left unchanged is remembered), body, session and security token. Each is masked here,
 * before it reaches a store.
 */
import { KernelRequest } from '../../../http/request.ts';
import { isSecretName, MASK, maskContent, maskHeaders, maskToken, sanitize, sanitizeRecord, scrubStoredText } from '../mask.ts';
import { StoredSession } from '../../../session/session.ts';
import { isAnonymousMember, type Profile } from '../profile.ts';
import { PROFILE_LIMITS } from './limits.ts';
import { postMediaType } from '../../../listeners/json-request-transformer-listener.ts';
import { asRecord, attempt } from './safe-read.ts';
import { TOKEN_ATTRIBUTE, type AccessDecision } from '../../../security/member.ts';

/**
 * The last request headers that masking left as they were, and their masked copy (frozen: the
 * profiles share it). A client sends the same headers request after request. Headers that masking
 * changes (cookies, credentials) are never remembered: nothing secret is kept past the request.
 */
let lastPlainHeaders: string[] = [];
let lastMaskedHeaders: Readonly<Record<string, string>> | null = null;

export function requestHeaders(request: KernelRequest): Record<string, string> {
  const flat = attempt(() => request.headers.lines(), [] as string[]);
  if (lastMaskedHeaders !== null && sameStrings(flat, lastPlainHeaders)) return lastMaskedHeaders;
  const masked = maskHeaders(flat, PROFILE_LIMITS.headers, PROFILE_LIMITS.headerValue);
  if (maskedNothing(flat, masked)) {
    lastPlainHeaders = flat;
    lastMaskedHeaders = Object.freeze(masked);
  }
  return masked;
}

/** The raw request headers remembered, as name, value, name, value... (tests). */
export function rememberedRequestHeaders(): readonly string[] {
  return lastMaskedHeaders === null ? [] : lastPlainHeaders;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether the masked headers are the raw ones (name, value, name, value...), the same and in the same order. */
function maskedNothing(flat: readonly string[], masked: Record<string, string>): boolean {
  const names = Object.keys(masked);
  if (names.length * 2 !== flat.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== flat[2 * i] || masked[names[i]!] !== flat[2 * i + 1]) return false;
  return true;
}

export const NO_CONTENT = { content: null, length: 0, truncated: false } as const;

export type Content = { content: string | null; length: number; truncated: boolean };

/**
 * The raw body as the profile keeps it: masked and bounded, or null when the application did not read
 * it. A `multipart/form-data` body is kept as '' with its length, as in Symfony, whose profiler reads
 * `Request::getContent()` and so `php://input`, which PHP leaves empty for such bodies: its fields are
 * the body parameters (masked) and its files are described there by name, size and type. Keeping the
 * raw parts instead would store uploaded files' bytes (a private key, an `.env`), which no field-name
 * masking can tell from harmless data.
 */
export async function requestContent(request: KernelRequest): Promise<Content> {
  if (!request.contentRead) return { content: null, length: 0, truncated: false };
  let bytes: Uint8Array;
  try {
    bytes = await request.content();
  } catch {
    return { content: null, length: 0, truncated: false };
  }
  const length = bytes.byteLength;
  // The media type as PHP (and the body listener) reads it, up to `;`, `,` or a space: `multipart/form-data,
  // boundary=X` is a multipart body whose files PHP parses, and its bytes were kept whole.
  if (length === 0 || postMediaType(request.source.header('content-type') ?? '') === 'multipart/form-data') return { content: '', length, truncated: false };
  // Decode a little more than kept, so masking sees whole fields near the cut.
  const slice = bytes.subarray(0, Math.min(length, PROFILE_LIMITS.content * 4));
  const text = new TextDecoder().decode(slice);
  const masked = maskContent(text, request.contentType, PROFILE_LIMITS.content);
  return { content: masked, length, truncated: length > slice.byteLength || masked.length < text.length || text.length > PROFILE_LIMITS.content };
}

export function session(request: KernelRequest, collectedRequest: Record<string, unknown> | null, cookieName: string): Profile['session'] {
  const collectorRan = collectedRequest !== null && 'sessionAttributes' in collectedRequest;
  const fromCollector = collectedRequest ? asRecord(collectedRequest.sessionAttributes) : null;
  const s = request.sessionIfCreated;
  if (s) {
    // Read without counting as a use of the session (peek), and never load one the request did not.
    const peek = (s as { peek?: () => Record<string, unknown> | null }).peek;
    const attributes = collectorRan ? fromCollector : typeof peek === 'function' ? attempt(() => peek.call(s), null) : s.isStarted ? attempt(() => s.all(), null) : null;
    return { id: maskToken(attempt(() => s.id, '')), started: attempt(() => s.isStarted, false), attributes: sanitizeRecord(attributes) };
  }
  if (fromCollector) return { id: null, started: true, attributes: sanitizeRecord(fromCollector) };
  const cookie = attempt(() => request.cookies.get(cookieName), undefined);
  if (typeof cookie === 'string' && cookie) return { id: maskToken(cookie), started: false, attributes: {} };
  return null;
}

export function security(attribute: (key: string) => unknown, decisions: { readonly kept: readonly AccessDecision[]; readonly dropped: number } = { kept: [], dropped: 0 }): Profile['security'] {
  // `irms_token` and `member_id` are recorded before the controller (LoginListener::setup); a request the
  // firewall answered or denied earlier (access control, a logout) has only the firewall's member.
  const member = attribute(TOKEN_ATTRIBUTE);
  const known = member !== null && typeof member === 'object' ? (member as { irmsToken?: unknown; memberId?: unknown; roles?: unknown; reachableRoles?: unknown; authenticatedBy?: unknown }) : null;
  const token = attribute('irms_token') ?? known?.irmsToken;
  const memberId = attribute('member_id') ?? known?.memberId;
  // `_firewall` is '' for a request no firewall covers (Authenticator.assign): it has none, not one named ''.
  const named = attribute('_firewall');
  const firewall = named === '' ? null : named ?? attribute('_firewall_context');
  const roles = known === null ? [] : roleNames(known.roles);
  return {
    token: token === undefined || token === null ? null : typeof token === 'string' ? maskToken(token) : sanitize(token),
    memberId: memberId === undefined ? null : sanitize(memberId),
    firewall: typeof firewall === 'string' ? firewall : firewall === undefined || firewall === null ? null : String(sanitize(firewall)),
    authenticated: !isAnonymousMember(memberId) || (token !== undefined && token !== null && token !== ''),
    roles,
    inheritedRoles: known === null ? [] : inheritedRoleNames(known.reachableRoles, roles),
    decisions: decisions.kept.map(profiledDecision),
    decisionsDropped: decisions.dropped,
    authenticatedBy: typeof known?.authenticatedBy === 'string' ? known.authenticatedBy : null,
  };
}

/**
 * A decision as the panel lists it: the attributes (a non-string one described, as the subject is), the
 * subject in one line, the verdict.
 */
function profiledDecision(decision: AccessDecision): { attributes: string[]; subject: string; granted: boolean } {
  const attributes = decision.attributes.map((a) => (typeof a === 'string' ? (a.length > 128 ? `${a.slice(0, 128)}…` : a) : describeSubject(a)));
  return { attributes, subject: describeSubject(decision.subject), granted: decision.granted };
}

const SUBJECT_FIELDS = 20;
const SUBJECT_STRING = 100;

/**
 * The subject in one line, cheap and safe whatever the app passes: the request as its method and path
 * (scrubbed as the profile's path is), a session as `Session` (its id is a secret), another object as its
 * class and its first 20 own fields, one level deep (nested objects by class name, secrets by field name
 * masked, strings scrubbed and cut), so a subject holding a store or a huge graph costs nothing to show.
 * A subject that throws when read (a getter, a Proxy) is `[unreadable]`.
 */
function describeSubject(subject: unknown): string {
  return attempt(() => {
    if (subject === undefined || subject === null) return 'null';
    if (subject instanceof KernelRequest) return `Request ${subject.realMethod} ${truncateText(scrubStoredText(subject.pathInfo), 200)}`;
    if (subject instanceof StoredSession) return 'Session';
    if (typeof subject !== 'object') return typeof subject === 'string' ? JSON.stringify(truncateText(scrubStoredText(subject), SUBJECT_STRING)) : String(subject);
    const name = className(subject);
    if (Array.isArray(subject)) return `array(${subject.length})`;
    const fields: string[] = [];
    const keys = Object.keys(subject);
    for (const key of keys.slice(0, SUBJECT_FIELDS)) fields.push(`${JSON.stringify(key)}:${fieldText(key, (subject as Record<string, unknown>)[key])}`);
    if (keys.length > SUBJECT_FIELDS) fields.push(`"…":"${keys.length - SUBJECT_FIELDS} more fields"`);
    const shown = `${name === 'Object' ? '' : `${name} `}{${fields.join(',')}}`;
    return shown.length > 300 ? `${shown.slice(0, 300)}…` : shown;
  }, '[unreadable]');
}

function fieldText(key: string, value: unknown): string {
  if (isSecretName(key) && value !== null && value !== undefined && value !== '') return JSON.stringify(MASK);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(truncateText(scrubStoredText(value), SUBJECT_STRING));
  if (typeof value === 'object') return Array.isArray(value) ? `"[array(${value.length})]"` : `"[${className(value)}]"`;
  if (typeof value === 'function') return '"[function]"';
  return typeof value === 'bigint' || typeof value === 'symbol' ? JSON.stringify(value.toString()) : String(value);
}

function className(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'Object';
}

function truncateText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** What a role hierarchy gave the member beyond `roles` (SecurityDataCollector's inherited_roles). */
function inheritedRoleNames(reachable: unknown, own: readonly string[]): string[] {
  if (!Array.isArray(reachable)) return [];
  const inherited = reachable.filter((r): r is string => typeof r === 'string' && !own.includes(r)).slice(0, PROFILE_LIMITS.roles);
  return inherited.map((r) => (r.length > 128 ? `${r.slice(0, 128)}…` : r));
}

/** A member's roles as the panel lists them: `ROLE_USER` included, as every member holds it (rolesOf). */
function roleNames(roles: unknown): string[] {
  const names = Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string').slice(0, PROFILE_LIMITS.roles) : [];
  if (!names.includes('ROLE_USER')) names.push('ROLE_USER');
  return names.map((r) => (r.length > 128 ? `${r.slice(0, 128)}…` : r));
}
