import type { KernelRequest } from '../http/request.ts';

/** How the member of a request was authenticated. */
export type AuthenticatedBy = 'session' | 'login' | 'bearer' | 'remember_me' | 'authenticator';

/**
 * The logged-in member of a request (Symfony's security token): `irmsToken` and `memberId` are what
 * CONTRACT §8.5 records; `roles` feed `isGranted`. Every member also has `ROLE_USER`.
 */
export interface Member {
  readonly memberId: string;
  readonly irmsToken: string;
  readonly roles: readonly string[];
  readonly authenticatedBy: AuthenticatedBy;
  /**
   * With `createApp({ roleHierarchy })`: `roles`, `ROLE_USER` and every role the hierarchy gives them,
   * what isGranted decides on (set when the firewall or logIn settles the member). Absent otherwise.
   */
  readonly reachableRoles?: readonly string[];
}

/** Request attributes the security listeners use. */
export const TOKEN_ATTRIBUTE = '_security_token';
export const FIREWALL_ATTRIBUTE = '_firewall';
export const FIREWALL_CONTEXT_ATTRIBUTE = '_firewall_context';
export const REMEMBER_ME_COOKIE_ATTRIBUTE = '_security_remember_me_cookie';

/** The session key a firewall context keeps its member under (Symfony's `_security_<context>`). */
export function sessionKey(context: string): string {
  return `_security_${context}`;
}

const MAX_FIELD = 1024;

/** A member from untrusted data (session, signed token), or null when any field has the wrong type. */
export function toMember(value: unknown, authenticatedBy: AuthenticatedBy, irmsToken?: string): Member | null {
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const memberId = v.memberId;
  const token = irmsToken ?? v.irmsToken;
  const roles = v.roles ?? [];
  if (typeof memberId !== 'string' || memberId === '' || memberId.length > MAX_FIELD) return null;
  if (typeof token !== 'string' || token.length > 4 * MAX_FIELD) return null;
  if (!Array.isArray(roles) || roles.length > 64 || !roles.every((r) => typeof r === 'string' && r.length <= 128)) return null;
  return { memberId, irmsToken: token, roles: Object.freeze([...(roles as string[])]), authenticatedBy };
}

/** What the session keeps of a member. */
export interface StoredMember {
  memberId: string;
  irmsToken: string;
  roles: string[];
  /** Present (true) only for a member a remember-me cookie authenticated. */
  rememberMe?: true;
}

/**
 * What the session stores for a member. A later request reads it back as `session`, except a
 * remember-me member: Symfony's ContextListener stores the RememberMeToken itself, so the member
 * stays not fully authenticated until a real login (IS_AUTHENTICATED_FULLY keeps failing).
 */
export function storedMember(member: Member): StoredMember {
  const stored: StoredMember = { memberId: member.memberId, irmsToken: member.irmsToken, roles: [...member.roles] };
  if (member.authenticatedBy === 'remember_me') stored.rememberMe = true;
  return stored;
}

/** How a member read back from the session counts as authenticated. */
export function storedAuthentication(stored: unknown): AuthenticatedBy {
  return stored !== null && typeof stored === 'object' && (stored as StoredMember).rememberMe === true ? 'remember_me' : 'session';
}

/**
 * The member of a request once the firewall authenticated it (LoginListener::setup does that before the
 * controller runs), or null for anonymous requests.
 */
export function getMember(request: KernelRequest): Member | null {
  const token = request.attributes.get(TOKEN_ATTRIBUTE);
  return token && typeof token === 'object' ? (token as Member) : null;
}

/**
 * Roles of a member, `ROLE_USER` and those the role hierarchy gives included (the `roles` of Symfony's
 * ExpressionVoter); none for anonymous requests.
 */
export function rolesOf(member: Member | null): readonly string[] {
  if (!member) return [];
  if (member.reachableRoles !== undefined) return member.reachableRoles;
  return member.roles.includes('ROLE_USER') ? member.roles : [...member.roles, 'ROLE_USER'];
}

/**
 * Symfony's isGranted for roles and the authentication attributes: `PUBLIC_ACCESS` always;
 * `IS_AUTHENTICATED` / `IS_AUTHENTICATED_REMEMBERED` for any member; `IS_AUTHENTICATED_FULLY` when not
 * authenticated by a remember-me cookie; `IS_REMEMBERED` only when authenticated by one; anything else
 * must be one of the member's roles or, with a role hierarchy, a role they reach (RoleHierarchyVoter).
 */
export function isGranted(member: Member | null, attribute: string): boolean {
  // RoleVoter and AuthenticatedVoter abstain on an attribute that is no string (`!\is_string($attribute)`).
  if (typeof attribute !== 'string') return false;
  if (attribute === 'PUBLIC_ACCESS' || attribute === 'IS_AUTHENTICATED_ANONYMOUSLY') return true;
  if (!member) return false;
  if (attribute === 'IS_AUTHENTICATED' || attribute === 'IS_AUTHENTICATED_REMEMBERED') return true;
  if (attribute === 'IS_AUTHENTICATED_FULLY') return member.authenticatedBy !== 'remember_me';
  // Symfony 5.4's AuthenticatedVoter: IS_REMEMBERED holds only for a member a remember-me cookie authenticated.
  if (attribute === 'IS_REMEMBERED') return member.authenticatedBy === 'remember_me';
  // RoleVoter votes on `ROLE_*` only: any other name no voter knows is denied (every voter abstains and
  // Symfony's access decision manager does not allow when all abstain), even to a member holding it.
  return attribute === 'ROLE_USER' || (attribute.startsWith('ROLE_') && (member.reachableRoles ?? member.roles).includes(attribute));
}

/**
 * Symfony's isGranted for a list of attributes under the affirmative strategy: any one grants. Except
 * `PUBLIC_ACCESS`, which AuthenticatedVoter grants only when it is the whole list (`$attributes ===
 * [self::PUBLIC_ACCESS]`): beside another attribute it is no attribute any voter grants. `alone` says
 * whether the list is the whole decision (an access rule's `allow_if` is one more attribute). Given the
 * request, the app's voters are asked too, about `subject`.
 */
export function isGrantedAny(member: Member | null, attributes: readonly string[], alone = attributes.length === 1, request?: KernelRequest, subject?: unknown, log = true): boolean {
  let granted = false;
  for (const attribute of attributes) {
    if (!alone && attribute === 'PUBLIC_ACCESS') continue;
    if (isGranted(member, attribute) || (request !== undefined && votersGrant(request, member, attribute, subject))) {
      granted = true;
      break;
    }
  }
  if (log && request !== undefined && request.settings.debug) logAccessDecision(request, attributes, subject, granted);
  return granted;
}

/** One decision, as Symfony's TraceableAccessDecisionManager logs it for the profiler's security panel. */
export interface AccessDecision {
  readonly attributes: readonly string[];
  readonly subject: unknown;
  readonly granted: boolean;
}

/** Decisions kept per request (debug mode only): a loop of isGranted calls must not grow a profile without end. */
export const ACCESS_DECISIONS_KEPT = 100;
const accessDecisions = new WeakMap<KernelRequest, { kept: AccessDecision[]; dropped: number }>();

/** Records a decision for the profiler; called in debug mode only, so production keeps nothing. */
export function logAccessDecision(request: KernelRequest, attributes: readonly string[], subject: unknown, granted: boolean): void {
  let log = accessDecisions.get(request);
  if (log === undefined) accessDecisions.set(request, (log = { kept: [], dropped: 0 }));
  if (log.kept.length < ACCESS_DECISIONS_KEPT) log.kept.push({ attributes: [...attributes], subject, granted });
  else log.dropped++;
}

/** The request's decisions, in the order they were made, and how many past the bound were not kept (none outside debug mode). */
export function accessDecisionsOf(request: KernelRequest): { readonly kept: readonly AccessDecision[]; readonly dropped: number } {
  return accessDecisions.get(request) ?? NO_DECISIONS;
}

const NO_DECISIONS = Object.freeze({ kept: Object.freeze([]) as readonly AccessDecision[], dropped: 0 });

/**
 * Whether one of the app's voters (`createApp({ voters })`, security/voter.ts) grants the attribute: asked
 * after the built-in ones, as the affirmative strategy asks every voter until one grants.
 */
export function votersGrant(request: KernelRequest, member: Member | null, attribute: string, subject: unknown): boolean {
  const voters = request.settings.voters;
  if (voters === undefined || voters === null) return false;
  for (const voter of voters) if (synchronous(voter.supports(attribute, subject), 'supports') === true && synchronous(voter.voteOnAttribute(attribute, subject, member, request), 'voteOnAttribute') === true) return true;
  return false;
}

/** A voter's answer, refused when it is a promise: it would never grant, and say nothing of why. */
function synchronous(answer: unknown, method: string): unknown {
  if (answer !== null && typeof answer === 'object' && typeof (answer as { then?: unknown }).then === 'function') {
    (answer as Promise<unknown>).then(undefined, () => undefined);
    throw new TypeError(`A voter's ${method}() must answer synchronously (a boolean), as Symfony's voters do; it answered a promise. Load what the vote needs before asking (a route converter).`);
  }
  return answer;
}

/** Attributes some voter decides on (RoleVoter's `ROLE_*`, AuthenticatedVoter's): others are always denied. */
export function isVotedAttribute(attribute: string): boolean {
  return attribute.startsWith('ROLE_') || AUTHENTICATED_ATTRIBUTES.has(attribute);
}

const AUTHENTICATED_ATTRIBUTES = new Set(['PUBLIC_ACCESS', 'IS_AUTHENTICATED_ANONYMOUSLY', 'IS_AUTHENTICATED', 'IS_AUTHENTICATED_REMEMBERED', 'IS_AUTHENTICATED_FULLY', 'IS_REMEMBERED']);
