import { KernelRequest } from '../http/request.ts';
import { AccessDeniedException } from '../kernel/exceptions.ts';
import { getMember, isGranted as builtInVote, logAccessDecision, votersGrant, type Member } from './member.ts';

/**
 * Symfony's Voter, for the attributes an app decides itself (`POST_EDIT` on a post, `TENANT_VIEW` on a
 * tenant): `createApp({ voters })`. Synchronous, as Symfony's are: load what the vote needs before asking.
 */
export interface Voter {
  /** Voter::supports(): whether this voter decides the attribute for this subject (else it abstains). */
  supports(attribute: string, subject: unknown): boolean;
  /** Voter::voteOnAttribute(): true grants, false denies; `member` is null for an anonymous request. */
  voteOnAttribute(attribute: string, subject: unknown, member: Member | null, request: KernelRequest): boolean;
}

/**
 * Symfony's AccessDecisionManager with the affirmative strategy over the built-in voters (RoleVoter with
 * the role hierarchy, AuthenticatedVoter) and the app's: any voter granting grants; none granting (all
 * denying or abstaining) denies. A custom voter therefore cannot take away what a role grants.
 */
export function decide(request: KernelRequest, member: Member | null, attribute: string, subject: unknown): boolean {
  const granted = builtInVote(member, attribute) || votersGrant(request, member, attribute, subject);
  if (request.settings.debug) logAccessDecision(request, [attribute], subject, granted);
  return granted;
}

/**
 * Symfony's AbstractController::isGranted and Twig's is_granted. Given the request: whether its member is
 * granted the attribute, on the subject when one is given, by the role voters and the app's `voters`.
 * Given a member (or null): by the role voters only (roles, the hierarchy's, IS_AUTHENTICATED_*).
 */
export function isGranted(member: Member | null, attribute: string): boolean;
export function isGranted(request: KernelRequest, attribute: string, subject?: unknown): boolean;
export function isGranted(who: Member | KernelRequest | null, attribute: string, subject?: unknown): boolean {
  if (who instanceof KernelRequest) return decide(who, getMember(who), attribute, subject);
  return builtInVote(who, attribute);
}

/**
 * AbstractController::denyAccessUnlessGranted: throws AccessDeniedException (`Access Denied.` unless a
 * message is given) when the attribute is not granted; the firewall answers it with the entry point (the
 * login redirect or a 401) for anonymous and remember-me members, a 403 for the others.
 */
export function denyAccessUnlessGranted(request: KernelRequest, attribute: string, subject?: unknown, message = 'Access Denied.'): void {
  if (!isGranted(request, attribute, subject)) throw new AccessDeniedException(message);
}

/** Checks a `voters` option when the app is built: a list of { supports, voteOnAttribute }. */
export function assertVoters(value: unknown): asserts value is readonly Voter[] {
  const shape = 'a list of voters ({ supports(attribute, subject), voteOnAttribute(attribute, subject, member, request) })';
  if (!Array.isArray(value)) throw new Error(`createApp option "voters" must be ${shape}.`);
  value.forEach((voter: unknown, index) => {
    const v = voter as Record<string, unknown> | null;
    const missing = v === null || typeof v !== 'object' ? 'is not an object' : typeof v.supports !== 'function' ? 'has no supports() function' : typeof v.voteOnAttribute !== 'function' ? 'has no voteOnAttribute() function' : null;
    if (missing !== null) throw new Error(`createApp option "voters": voters[${index}] ${missing}; it must be ${shape.slice('a list of voters '.length)}.`);
  });
}
