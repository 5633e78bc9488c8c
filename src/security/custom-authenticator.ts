import type { KernelRequest } from '../http/request.ts';
import type { HttpResponse } from '../http/response.ts';
import { AuthenticationException, BadCredentialsException, type AccessDeniedException } from '../kernel/exceptions.ts';
import { hasSessionCookie } from '../listeners/session-listener.ts';
import { startSession } from '../session/session.ts';
import { statefulContextOf, withHierarchy, type RememberMeCookieAction } from './authenticator.ts';
import { clearCsrfTokens } from './csrf.ts';
import type { Firewall } from './firewall-map.ts';
import { REMEMBER_ME_COOKIE_ATTRIBUTE, sessionKey, TOKEN_ATTRIBUTE, toMember, type Member } from './member.ts';

type Maybe<T> = T | Promise<T>;
/** What a handler may end the request with: a response, or null to let the request go on. */
type HandlerResponse = Maybe<HttpResponse | Response | null | undefined>;

/** The member a custom authenticator found: `irmsToken` (default '') is what the request's `irms_token` becomes. */
export interface AuthenticatedCredentials {
  memberId: string;
  roles?: readonly string[];
  irmsToken?: string;
}

/**
 * A firewall's `customAuthenticators` entry: Symfony's AuthenticatorInterface, for the credentials a Symfony
 * app reads itself (an `X-AUTH-TOKEN` header, a JSON login body, a signed query parameter).
 */
export interface CustomAuthenticator {
  /** Shown in the log (`authenticator` in the context); default the object's class name. */
  readonly name?: string;
  /**
   * supports(): true when this request carries this authenticator's credentials; null (Symfony's "lazily")
   * runs it too. Synchronous, as Symfony's is called eagerly: a promise is the app's error (a 500).
   */
  supports(request: KernelRequest): boolean | null;
  /**
   * authenticate(): the member the credentials belong to. Throw an AuthenticationException (a
   * CustomUserMessageAuthenticationException for a message meant for the client) to fail; answering null
   * fails with BadCredentialsException (`Invalid credentials.`), as a user provider that finds no user.
   */
  authenticate(request: KernelRequest): Maybe<AuthenticatedCredentials | null>;
  /** onAuthenticationSuccess(): a response ends the request there; null (or no method) lets it go on to its controller. */
  onAuthenticationSuccess?(request: KernelRequest, member: Member): HandlerResponse;
  /** onAuthenticationFailure(): a response ends the request there; null (or no method) lets it go on unauthenticated. */
  onAuthenticationFailure?(request: KernelRequest, error: AuthenticationException): HandlerResponse;
  /**
   * AuthenticationEntryPointInterface::start(): the response that asks an unauthenticated client for
   * credentials (a JSON 401). The firewall's entry point when it is its only authenticator with one and the
   * firewall names no `entryPoint`.
   */
  start?(request: KernelRequest, error: AuthenticationException): Maybe<HttpResponse | Response>;
}

/** Symfony's entry point (`entry_point`): a function, or an object with `start` as the interface has it. */
export type EntryPointFunction = (request: KernelRequest, error: AuthenticationException) => Maybe<HttpResponse | Response>;
export type EntryPoint = EntryPointFunction | { start: EntryPointFunction };

/** Symfony's `access_denied_handler`: a function, or an object with `handle`; null lets the 403 be answered as usual. */
export type AccessDeniedHandlerFunction = (request: KernelRequest, error: AccessDeniedException) => HandlerResponse;
export type AccessDeniedHandler = AccessDeniedHandlerFunction | { handle: AccessDeniedHandlerFunction };

/**
 * Symfony's AuthenticatorManager for a firewall's custom authenticators, which the firewall runs at
 * kernel.request, before the member is looked for anywhere else (a lazy firewall included: its
 * LazyFirewallContext authenticates at once when an authenticator supports the request). Every
 * authenticator whose `supports` answers true runs, in order, until one's handler answers a response:
 * - success: the member (roles from the hierarchy, `authenticatedBy: 'authenticator'`) is the request's.
 *   On a stateful firewall and route that is a login, as Symfony's SessionStrategyListener sees it: a
 *   session the request came with gets a new id and loses its CSRF tokens unless it already held this
 *   member, and the firewall context keeps the member in the session (give API firewalls `stateless`);
 * - failure: `Authenticator failed.` is logged (INFO) and the request goes on as if the authenticator had
 *   not run (bearer, session and remember-me still apply), unless `onAuthenticationFailure` answers.
 * Null when no authenticator supports the request (nothing awaited); else the response that ended it, or null.
 */
export function runCustomAuthenticators(request: KernelRequest, firewall: Firewall): Promise<HttpResponse | Response | null> | null {
  const authenticators = firewall.customAuthenticators;
  if (authenticators.length === 0) return null;
  let supported: CustomAuthenticator[] | null = null;
  for (const authenticator of authenticators) if (supports(authenticator, request)) (supported ??= []).push(authenticator);
  return supported === null ? null : executeAll(request, firewall, supported);
}

/**
 * supports() read as Symfony's `?bool`: null is "yes, lazily" (AuthenticatorManager::supports keeps every
 * authenticator not answering false; here the firewall runs it at once, as the member is settled before every
 * controller anyway), another value as PHP would coerce it (a header string is true; '', 0 and undefined
 * false). A promise is refused: Symfony calls supports() eagerly, and one left unwatched that rejects would
 * end a Node process.
 */
function supports(authenticator: CustomAuthenticator, request: KernelRequest): boolean {
  const answer: unknown = authenticator.supports(request);
  if (answer === null) return true;
  if (answer !== undefined && typeof (answer as { then?: unknown }).then === 'function') {
    (answer as Promise<unknown>).then(undefined, () => undefined);
    throw new TypeError(`${nameOf(authenticator)}.supports() must answer synchronously (true, false or null), as Symfony calls it before authenticating; it answered a promise. Do asynchronous work in authenticate().`);
  }
  return Boolean(answer);
}

async function executeAll(request: KernelRequest, firewall: Firewall, authenticators: readonly CustomAuthenticator[]): Promise<HttpResponse | Response | null> {
  for (const authenticator of authenticators) {
    const response = await execute(request, firewall, authenticator);
    if (response !== null && response !== undefined) return response;
  }
  return null;
}

async function execute(request: KernelRequest, firewall: Firewall, authenticator: CustomAuthenticator): Promise<HttpResponse | Response | null | undefined> {
  const name = nameOf(authenticator);
  let member: Member | null;
  try {
    const credentials = await authenticator.authenticate(request);
    if (credentials === null || credentials === undefined) throw new BadCredentialsException('Bad credentials.');
    member = toMember({ memberId: credentials.memberId, irmsToken: credentials.irmsToken ?? '', roles: credentials.roles ?? [] }, 'authenticator');
    if (member === null) throw new TypeError(`${name}.authenticate() must answer { memberId, roles?, irmsToken? } or null: a non-empty string memberId of at most 1,024 characters, at most 64 string roles of at most 128 characters, a string irmsToken of at most 4,096 characters.`);
  } catch (error) {
    if (!(error instanceof AuthenticationException)) throw error;
    request.logger.info('security', 'Authenticator failed.', { exception: error, authenticator: name });
    if (firewall.context !== '') clearRememberMe(request);
    return authenticator.onAuthenticationFailure ? authenticator.onAuthenticationFailure(request, error) : null;
  }
  member = withHierarchy(request, member)!;
  if (statefulContextOf(request) !== null) await migrateUnlessSameMember(request, firewall, member);
  request.attributes.set(TOKEN_ATTRIBUTE, member);
  request.logger.info('security', 'Authenticator successful!', { authenticator: name, member_id: member.memberId });
  return authenticator.onAuthenticationSuccess ? authenticator.onAuthenticationSuccess(request, member) : null;
}

/**
 * Symfony's RememberMeListener on a LoginFailureEvent (stateful firewalls, which have remember-me here):
 * the remember-me cookie is cleared, and RememberMeAuthenticator::supports then declines the request, so a
 * failed login does not fall back to the remembered member.
 */
function clearRememberMe(request: KernelRequest): void {
  request.logger.debug('security', 'Clearing remember-me cookie.');
  request.attributes.set(REMEMBER_ME_COOKIE_ATTRIBUTE, { action: 'clear' } satisfies RememberMeCookieAction);
}

/**
 * SessionStrategyListener::onSuccessfulLogin: only a session the request came with, and not when the member
 * it held is the one authenticated again (an API client sending its token on every request keeps its session).
 */
async function migrateUnlessSameMember(request: KernelRequest, firewall: Firewall, member: Member): Promise<void> {
  const cookieName = request.settings.sessionCookieName;
  if (cookieName === undefined || !hasSessionCookie(request, cookieName) || !request.hasSession()) return;
  await startSession(request);
  const session = request.getSession();
  const stored = session.get(sessionKey(firewall.context)) as { memberId?: unknown } | undefined;
  if (stored !== undefined && stored !== null && stored.memberId === member.memberId) return;
  session.migrate();
  clearCsrfTokens(session);
}

function nameOf(authenticator: CustomAuthenticator): string {
  if (typeof authenticator.name === 'string' && authenticator.name !== '') return authenticator.name;
  const constructorName = (authenticator as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof constructorName === 'string' && constructorName !== '' && constructorName !== 'Object' ? constructorName : 'CustomAuthenticator';
}
