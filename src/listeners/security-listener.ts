import type { KernelRequest } from '../http/request.ts';
import type { ControllerArgumentsEvent } from '../kernel/events.ts';
import { AccessDeniedException, HttpException, UnauthorizedHttpException } from '../kernel/exceptions.ts';
import { isThenable, listener, idleWhen, routeLacks } from '../kernel/hooks.ts';
import { getMember, rolesOf, type Member } from '../security/member.ts';
import { decide } from '../security/voter.ts';
import { convertedRouteParams } from './param-converter-listener.ts';

/** What a `security` predicate gets. `method` reads HEAD as GET. */
export interface SecurityContext {
  request: KernelRequest;
  member: Member | null;
  roles: readonly string[];
  method: string;
  /** Route parameters (after conversion). */
  params: Record<string, unknown>;
  /** Symfony's `is_granted(attribute, subject)`: the role voters, then the app's voters on the subject. */
  isGranted(attribute: string, subject?: unknown): boolean;
}

export type SecurityPredicate = (context: SecurityContext) => boolean | Promise<boolean>;

/** The `security` route option (Sensio's @Security): a predicate, or one with its own message/status. */
export type SecurityOption = SecurityPredicate | { predicate: SecurityPredicate; message?: string; statusCode?: number | string | null };

export const UNAUTHORIZED_MESSAGE = 'Full authentication is required to access this resource.';

/**
 * What Sensio's SecurityListener and IsGrantedListener throw when access is denied: HttpException with
 * the configured status, else the security AccessDeniedException, which the firewall's ExceptionListener
 * (security-exception-listener.ts) turns into the entry point (the login path's redirect for HTML
 * clients), a 401 for requests not fully authenticated (anonymous, remember-me), or a 403 — with
 * Symfony's log lines. Thrown as a 401 UnauthorizedHttpException (whose previous is that
 * AccessDeniedException) for an anonymous request, so that under a `security: false` firewall, where no
 * ExceptionListener runs, it is still a 401 and not a 500.
 */
export function denied(member: Member | null, message: string, statusCode?: unknown): Error {
  // Sensio's listeners test `if ($statusCode = $configuration->getStatusCode())`: 0 or null is no status
  // (an HttpException(null) was a bare 500), and PHP reads '403' as 403.
  const status = statusCode === null || statusCode === undefined ? 0 : Number(statusCode);
  if (status) return new HttpException(status, message);
  const refused = new AccessDeniedException(message);
  if (member === null || member.authenticatedBy === 'remember_me') return new UnauthorizedHttpException('Bearer', UNAUTHORIZED_MESSAGE, refused);
  return refused;
}

/** Builds the predicate context (only for routes that have a `security` option). */
export function securityContext(request: KernelRequest): SecurityContext {
  const member = getMember(request);
  const method = request.method;
  return {
    request,
    member,
    roles: rolesOf(member),
    method: method === 'HEAD' ? 'GET' : method,
    params: convertedRouteParams(request),
    isGranted: (attribute: string, subject?: unknown) => decide(request, member, attribute, subject),
  };
}

/**
 * SensioFrameworkExtraBundle's SecurityListener: the `security` route option (attribute `_security`)
 * is a predicate over the member, its roles and the request, checked before the controller runs. When
 * it answers false: the login path's redirect (HTML clients) or a 401 for anonymous and remember-me
 * requests (Symfony's firewall turns AccessDenied into an authentication entry point for them), 403
 * `Access Denied.` (or the option's message/status) for members.
 */
export class SecurityListener {
  readonly onKernelControllerArguments = idleWhen(
    listener<'kernel.controller_arguments'>('SecurityListener::onKernelControllerArguments', 'security annotation check', (event: ControllerArgumentsEvent) => {
      const request = event.request;
      const option = request.attributes.get('_security') as SecurityOption | undefined;
      if (option === undefined || option === null) return;
      const predicate = typeof option === 'function' ? option : option.predicate;
      if (typeof predicate !== 'function') throw new Error('The "security" route option must be a predicate function or { predicate, message?, statusCode? }.');
      const context = securityContext(request);
      const verdict = predicate(context);
      if (isThenable(verdict)) return Promise.resolve(verdict).then((granted) => enforce(granted, context.member, option));
      enforce(verdict, context.member, option);
    }),
    routeLacks('security', '_security'),
  );
}

function enforce(granted: boolean, member: Member | null, option: SecurityOption): void {
  if (granted === true) return;
  const message = typeof option === 'object' && option.message ? option.message : 'Access Denied.';
  throw denied(member, message, typeof option === 'object' ? option.statusCode : undefined);
}
