import type { KernelRequest } from '../http/request.ts';
import { rawUrlDecode } from '../http/url-encode.ts';
import { compilePcre } from './pcre-pattern.ts';
import { rawUrlDecodeBytes, utf8ByteString } from './byte-path.ts';
import type { AccessMap } from './access-control.ts';
import { remember } from '../http/remember.ts';
import type { AccessDeniedHandler, AccessDeniedHandlerFunction, CustomAuthenticator, EntryPoint, EntryPointFunction } from './custom-authenticator.ts';

/**
 * One firewall (Symfony's `security.firewalls.<name>`). Firewalls are tried in order against the
 * URL-decoded path; the first whose pattern matches (or that has none) protects the request.
 */
export interface FirewallConfig {
  name: string;
  /**
   * Tested against the decoded path (`^/admin/`); omitted = every path. Compiled once; a string as PCRE
   * reads Symfony's (`$` also before a final newline, `.` also a `\r`, `\A`/`\z` anchors, pattern and path as UTF-8 bytes), a
   * RegExp as JavaScript does (on the decoded text).
   */
  pattern?: RegExp | string;
  /** `false`: no authentication at all (Symfony's `security: false`). Default true. */
  security?: boolean;
  /** Stateless firewalls never read or write the session (bearer tokens only). Default false. */
  stateless?: boolean;
  /**
   * Lazy (default true): for GET/HEAD, authentication waits until something needs the member (the
   * LoginListener does, before the controller). Other methods authenticate at kernel.request.
   */
  lazy?: boolean;
  /** Firewalls sharing a context share the logged-in member. Default: the firewall's name. */
  context?: string;
  /**
   * This firewall's logout path (Symfony's `logout.path`): a request to it is logged out by the firewall
   * before any controller runs, and redirected to `logoutTarget`. A path (`/logout`) or a route name
   * (`app_logout`). It still needs a route, as in Symfony, whose controller never runs. Also what
   * `logoutUrl(request)` answers.
   */
  logoutPath?: string;
  /** Where a logout redirects (Symfony's `logout.target`): a path on this host or a URL. Default `/`. */
  logoutTarget?: string;
  /**
   * Symfony's `logout.csrf_token_generator` with this `csrf_token_id` (Symfony's default is `logout`): a
   * request to `logoutPath` logs out only with `_csrf_token` (query or body) holding
   * `csrfToken(request, <this id>)`; without it, a 403 `Invalid CSRF token.` and the member stays logged in,
   * so a link or form on another site cannot log members out. Needs `logoutPath` and a stateful firewall.
   */
  logoutCsrfTokenId?: string;
  /**
   * This firewall's entry point: where anonymous HTML clients of its `requiresLogin` routes are sent
   * ('' = 401). Default: LOGIN_PATH, except on `stateless` firewalls, which answer 401 (Symfony's API
   * authenticators start with a 401; only a form login redirects).
   */
  loginPath?: string;
  /**
   * Symfony's `custom_authenticators`: `{ supports, authenticate, onAuthenticationSuccess?,
   * onAuthenticationFailure? }` objects, run at kernel.request before the built-in bearer, session and
   * remember-me authentication (security/custom-authenticator.ts).
   */
  customAuthenticators?: readonly CustomAuthenticator[];
  /**
   * Symfony's `entry_point`: what answers a client that must authenticate (an anonymous request denied,
   * an AuthenticationException), instead of the login redirect or the 401. Default: the `start` of the
   * firewall's one custom authenticator that has one, else `loginPath`'s behaviour.
   */
  entryPoint?: EntryPoint;
  /** Symfony's `access_denied_handler`: answers a member denied access (a response), or null for the usual 403. */
  accessDeniedHandler?: AccessDeniedHandler;
}

export interface Firewall {
  readonly name: string;
  readonly pattern: RegExp | null;
  /** The pattern was a string, read as PCRE reads it without `u`: tested against the path's bytes (byte-path.ts). */
  readonly patternBytes: boolean;
  readonly security: boolean;
  readonly stateless: boolean;
  readonly lazy: boolean;
  /** '' when the firewall has no security or is stateless (nothing kept in the session). */
  readonly context: string;
  readonly logoutPath: string | null;
  readonly logoutTarget: string;
  /** The CSRF token id a logout must carry, or null when logout is not CSRF-protected. */
  readonly logoutCsrfTokenId: string | null;
  /** Its own login path ('' = 401), or null to use LOGIN_PATH. */
  readonly loginPath: string | null;
  /** Its custom authenticators, in order (none: an empty list). */
  readonly customAuthenticators: readonly CustomAuthenticator[];
  /** Its entry point (given, or its one authenticator's `start`), or null for the login path's behaviour. */
  readonly entryPoint: EntryPointFunction | null;
  readonly accessDeniedHandler: AccessDeniedHandlerFunction | null;
}

/**
 * The default map: the `dev` firewall turns security off for the profiler, toolbar and static assets;
 * then two stateful lazy firewalls with their own contexts — `admin` for `/admin` and `main` for
 * everything else — so a member logged in to one is not logged in to the other.
 */
export const DEFAULT_FIREWALLS: readonly FirewallConfig[] = Object.freeze([
  { name: 'dev', pattern: '^/(_(profiler|wdt)|css|images|js)/', security: false },
  { name: 'admin', pattern: '^/admin(?:/|$)', lazy: true, context: 'admin', logoutPath: '/admin/logout' },
  { name: 'main', lazy: true, context: 'main', logoutPath: '/logout' },
]);

const PATHS_KEPT = 256;
const PATH_LENGTH_KEPT = 256;

/** Symfony's FirewallMap: finds the firewall of a request. */
export class FirewallMap {
  readonly firewalls: readonly Firewall[];
  private readonly byName = new Map<string, Firewall>();
  /**
   * Path → its firewall, for up to PATHS_KEPT distinct paths of up to PATH_LENGTH_KEPT characters (emptied
   * when full, so a crawl of distinct paths does not shut the service's frequent ones out for good): the
   * map is fixed and its patterns carry no `g`/`y` state, so the answer depends on the path only, and
   * a service's frequent paths skip the pattern tests. Longer paths are matched each time.
   */
  private readonly byPath = new Map<string, Firewall | null>();

  /**
   * @param accessMap The `accessControl` rules (null: none), which the firewalls with security enforce
   *   (FirewallListener): kept here because the firewall listener is built from this map.
   */
  constructor(configs: readonly FirewallConfig[] = DEFAULT_FIREWALLS, readonly accessMap: AccessMap | null = null) {
    const firewalls: Firewall[] = [];
    for (const config of configs) {
      if (!config || typeof config.name !== 'string' || config.name === '') throw new Error('Every firewall needs a name.');
      if (this.byName.has(config.name)) throw new Error(`Firewall "${config.name}" is defined more than once.`);
      for (const key of ['loginPath', 'logoutPath', 'logoutTarget', 'logoutCsrfTokenId'] as const) {
        if (config[key] !== undefined && typeof config[key] !== 'string') throw new Error(`Firewall "${config.name}": ${key} must be a string, got ${typeof config[key]}.`);
      }
      if (config.logoutPath === '') throw new Error(`Firewall "${config.name}": logoutPath must not be empty (leave it out for no logout).`);
      const security = config.security ?? true;
      const stateless = config.stateless ?? false;
      if (config.logoutCsrfTokenId !== undefined) {
        // A protection that could never run would leave the logout open while looking configured.
        if (config.logoutCsrfTokenId === '') throw new Error(`Firewall "${config.name}": logoutCsrfTokenId must not be empty (Symfony's default id is "logout").`);
        if (config.logoutPath === undefined) throw new Error(`Firewall "${config.name}": logoutCsrfTokenId needs a logoutPath.`);
        if (!security || stateless) throw new Error(`Firewall "${config.name}": logoutCsrfTokenId needs a stateful firewall (CSRF tokens are kept in the session).`);
      }
      const customAuthenticators = checkedAuthenticators(config.name, config.customAuthenticators, security);
      const pattern = config.pattern === undefined ? null : config.pattern instanceof RegExp ? new RegExp(config.pattern.source, config.pattern.flags.replace(/[gy]/g, '')) : compileBytes(config.name, config.pattern);
      const firewall: Firewall = Object.freeze({
        name: config.name,
        pattern,
        patternBytes: typeof config.pattern === 'string',
        security,
        stateless,
        lazy: config.lazy ?? true,
        context: security && !stateless ? config.context ?? config.name : '',
        logoutPath: config.logoutPath ?? null,
        logoutTarget: config.logoutTarget || '/',
        logoutCsrfTokenId: config.logoutCsrfTokenId ?? null,
        // A stateless firewall has no session to come back to after a form login: its clients get the 401.
        loginPath: config.loginPath ?? (stateless ? '' : null),
        customAuthenticators,
        entryPoint: entryPointOf(config.name, config.entryPoint, customAuthenticators),
        accessDeniedHandler: accessDeniedHandlerOf(config.name, config.accessDeniedHandler),
      });
      firewalls.push(firewall);
      this.byName.set(firewall.name, firewall);
    }
    this.firewalls = Object.freeze(firewalls);
  }

  get(name: string): Firewall | undefined {
    return this.byName.get(name);
  }

  /** The firewall protecting a path (raw; decoded here), or null when none matches. */
  match(pathInfo: string): Firewall | null {
    const known = this.byPath.get(pathInfo);
    if (known !== undefined) return known;
    let path: string | null = null;
    let bytes: string | null = null;
    let found: Firewall | null = null;
    for (const firewall of this.firewalls) {
      const pattern = firewall.pattern;
      if (pattern === null || pattern.test(firewall.patternBytes ? (bytes ??= rawUrlDecodeBytes(pathInfo)) : (path ??= decodePath(pathInfo)))) {
        found = firewall;
        break;
      }
    }
    if (pathInfo.length <= PATH_LENGTH_KEPT) remember(this.byPath, PATHS_KEPT, pathInfo, found);
    return found;
  }

  matchRequest(request: KernelRequest): Firewall | null {
    return this.match(request.pathInfo);
  }

  /** The distinct contexts of stateful firewalls, in map order (one ContextListener each). */
  statefulContexts(): string[] {
    const out: string[] = [];
    for (const f of this.firewalls) if (f.context !== '' && !out.includes(f.context)) out.push(f.context);
    return out;
  }
}

/** A firewall's custom authenticators, checked when the app is built (a misspelt method would let every request through). */
function checkedAuthenticators(name: string, value: unknown, security: boolean): readonly CustomAuthenticator[] {
  if (value === undefined) return NO_AUTHENTICATORS;
  const shape = 'a list of { supports(request), authenticate(request), onAuthenticationSuccess?, onAuthenticationFailure? }';
  if (!Array.isArray(value)) throw new Error(`Firewall "${name}": customAuthenticators must be ${shape}.`);
  value.forEach((entry: unknown, index) => {
    const e = entry as Record<string, unknown> | null;
    const wrong = e === null || typeof e !== 'object' ? 'is not an object'
      : typeof e.supports !== 'function' ? 'has no supports() function'
      : typeof e.authenticate !== 'function' ? 'has no authenticate() function'
      : (['onAuthenticationSuccess', 'onAuthenticationFailure', 'start'] as const).filter((m) => e[m] !== undefined && typeof e[m] !== 'function').map((m) => `has a ${m} that is not a function`)[0];
    if (wrong !== undefined) throw new Error(`Firewall "${name}": customAuthenticators[${index}] ${wrong}; each must be ${shape.slice('a list of '.length)}.`);
  });
  if (!security && value.length > 0) throw new Error(`Firewall "${name}": customAuthenticators need security (this firewall has security: false).`);
  return Object.freeze([...value] as CustomAuthenticator[]);
}

const NO_AUTHENTICATORS: readonly CustomAuthenticator[] = Object.freeze([]);

/**
 * The firewall's entry point: the one given, else the `start` of its only custom authenticator that has
 * one. Two such authenticators and no `entryPoint` is Symfony's configuration error: which one answers
 * would otherwise depend on their order.
 */
function entryPointOf(name: string, given: unknown, authenticators: readonly CustomAuthenticator[]): EntryPointFunction | null {
  if (given !== undefined) {
    if (typeof given === 'function') return given as EntryPointFunction;
    const start = given !== null && typeof given === 'object' ? (given as { start?: unknown }).start : undefined;
    if (typeof start !== 'function') throw new Error(`Firewall "${name}": entryPoint must be a function (request, error) => Response, or an object with such a start() method.`);
    return (request, error) => (given as { start: EntryPointFunction }).start(request, error);
  }
  const starting = authenticators.filter((authenticator) => typeof authenticator.start === 'function');
  if (starting.length > 1) {
    throw new Error(`Because you have multiple authenticators with a start() method in firewall "${name}", you need to set its "entryPoint" to one of them. The entry point determines what should happen (e.g. redirect to "/login") when an anonymous user tries to access a protected page.`);
  }
  const only = starting[0];
  return only === undefined ? null : (request, error) => only.start!(request, error);
}

function accessDeniedHandlerOf(name: string, given: unknown): AccessDeniedHandlerFunction | null {
  if (given === undefined) return null;
  if (typeof given === 'function') return given as AccessDeniedHandlerFunction;
  const handle = given !== null && typeof given === 'object' ? (given as { handle?: unknown }).handle : undefined;
  if (typeof handle !== 'function') throw new Error(`Firewall "${name}": accessDeniedHandler must be a function (request, error) => Response | null, or an object with such a handle() method.`);
  return (request, error) => (given as { handle: AccessDeniedHandlerFunction }).handle(request, error);
}

/** A string pattern as PCRE reads it without `u`, on bytes (a syntax error quotes the pattern as written). */
function compileBytes(name: string, source: string): RegExp {
  try {
    const compiled = compilePcre(source);
    const bytes = utf8ByteString(source);
    return bytes === source ? compiled : compilePcre(bytes);
  } catch (error) {
    throw new Error(`Firewall "${name}": pattern ${JSON.stringify(source)} does not compile: ${(error as Error).message}`);
  }
}

/**
 * The path as Symfony's RequestMatcher::matches tests it, `rawurldecode($request->getPathInfo())`: each
 * valid `%XX` decoded, a `%` that starts no escape kept. decodeURIComponent threw on one bad escape and
 * the whole path stayed encoded, so `/%61dmin/%ZZ` escaped the `^/admin` firewall (and its context)
 * while the router still decoded `%61` in a path parameter.
 */
function decodePath(path: string): string {
  return rawUrlDecode(path);
}
