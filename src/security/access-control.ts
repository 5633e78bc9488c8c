import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import { IpMatcher, isIp } from '../http/ip.ts';
import { rawUrlDecode } from '../http/url-encode.ts';
import { AccessDeniedException } from '../kernel/exceptions.ts';
import { isThenable } from '../kernel/hooks.ts';
import { securityContext, type SecurityPredicate } from '../listeners/security-listener.ts';
import { meantName } from '../app/near-names.ts';
import { getMember, isGrantedAny, isVotedAttribute, logAccessDecision } from './member.ts';
import { compilePcre } from './pcre-pattern.ts';
import { rawUrlDecodeBytes, utf8ByteString } from './byte-path.ts';

/**
 * One `access_control` entry of Symfony's SecurityBundle. The request parts are those of its
 * RequestMatcher, all of them required to match; the first matching rule decides alone.
 */
export interface AccessControlRule {
  /**
   * Regex tested against the URL-decoded path (`^/admin`); a string is read as PCRE's `{…}` (no flags, `$` also
   * before a final newline, `.` also a `\r`, `\A` / `\z` / `\Z` anchors, pattern and path as UTF-8 bytes, so `.` is one byte
   * of an `é`), a RegExp as JavaScript reads it (on the decoded text).
   */
  path?: string | RegExp;
  /** Regex tested case-insensitively against the host (without port). */
  host?: string | RegExp;
  /** Methods (any case; `'GET, POST'` is split at commas). HEAD is not GET here, as in Symfony. */
  methods?: string | readonly string[];
  /** Client IPs or CIDR ranges (`'10.0.0.0/8'`, `'::1'`); commas split a string. */
  ips?: string | readonly string[];
  /** The request's port (after trusted proxies). */
  port?: number;
  /**
   * Roles or authentication attributes (`ROLE_ADMIN`, `IS_AUTHENTICATED_FULLY`, `PUBLIC_ACCESS`…); any one
   * grants access, as Symfony's affirmative decision does. `'ROLE_A, ROLE_B'` is split at commas.
   */
  roles?: string | readonly string[];
  /** Symfony's `allow_if`, as a function (`security` route option's context): access is granted when it answers true. */
  allowIf?: SecurityPredicate;
  /** `'https'` redirects plain-HTTP requests to the https URL (301), `'http'` the other way. */
  requiresChannel?: 'http' | 'https';
}

const RULE_KEYS = ['path', 'host', 'methods', 'ips', 'port', 'roles', 'allowIf', 'requiresChannel'] as const;

/** A rule compiled when the app is built. */
export interface AccessRule {
  readonly path: RegExp | null;
  /** The path pattern was a string, read as PCRE reads it without `u`: tested against the path's bytes (byte-path.ts). */
  readonly pathBytes: boolean;
  readonly host: RegExp | null;
  readonly methods: readonly string[] | null;
  readonly ips: IpMatcher | null;
  readonly port: number;
  readonly roles: readonly string[];
  readonly allowIf: SecurityPredicate | null;
  /**
   * AccessListener::supports: the rule asks something of the request's token (anything but only
   * PUBLIC_ACCESS or only IS_AUTHENTICATED_ANONYMOUSLY), so a lazy firewall authenticates at once.
   */
  readonly checksAccess: boolean;
  readonly channel: 'http' | 'https' | null;
}

/** Symfony's AccessMap: the rules in order, the first whose request matcher matches decides. */
export class AccessMap {
  private readonly textPaths: boolean;
  private readonly bytePaths: boolean;

  constructor(readonly rules: readonly AccessRule[]) {
    this.textPaths = rules.some((rule) => rule.path !== null && !rule.pathBytes);
    this.bytePaths = rules.some((rule) => rule.path !== null && rule.pathBytes);
  }

  /** AccessMap::getPatterns: the first matching rule, or null. */
  match(request: KernelRequest): AccessRule | null {
    // RequestMatcher tests `rawurldecode($request->getPathInfo())`: as bytes for PCRE patterns, as text for RegExps.
    const path = this.textPaths ? rawUrlDecode(request.pathInfo) : '';
    const bytes = this.bytePaths ? rawUrlDecodeBytes(request.pathInfo) : '';
    for (const rule of this.rules) if (matches(rule, request, path, bytes)) return rule;
    return null;
  }
}

/** RequestMatcher::matches (5.4), in its order: methods, path, host, port, then the client IP. */
function matches(rule: AccessRule, request: KernelRequest, path: string, bytes: string): boolean {
  if (rule.methods !== null && !rule.methods.includes(request.method)) return false;
  if (rule.path !== null && !rule.path.test(rule.pathBytes ? bytes : path)) return false;
  if (rule.host !== null && !rule.host.test(request.getHost())) return false;
  if (rule.port > 0 && request.getPort() !== rule.port) return false;
  return rule.ips === null || rule.ips.matches(request.getClientIp());
}

/**
 * The AccessListener's decision for a matching rule whose token is settled: granted when the member has
 * one of its attributes or its `allowIf` answers true (`PUBLIC_ACCESS` grants only as the rule's sole
 * attribute, as Symfony's AuthenticatedVoter decides it), else AccessDeniedException ("Access Denied."),
 * which the firewall's ExceptionListener answers with the entry point (anonymous and remember-me
 * members) or a 403. Symfony's AccessListener logs nothing itself.
 */
export function decideAccess(request: KernelRequest, rule: AccessRule): void | Promise<void> {
  // An allow_if expression is one more attribute: beside it PUBLIC_ACCESS grants nothing.
  // AccessListener asks with the request as the subject; the decision log shows the rule's roles and its
  // allow_if as one decision, as Symfony's does (the expression is one more attribute).
  const allowIf = rule.allowIf;
  const byRoles = isGrantedAny(getMember(request), rule.roles, rule.roles.length === 1 && allowIf === null, request, request, allowIf === null);
  if (allowIf === null) {
    if (byRoles) return;
    throw new AccessDeniedException();
  }
  const decided = (granted: boolean) => {
    if (request.settings.debug) logAccessDecision(request, [...rule.roles, `allowIf(${allowIf.name || 'function'})`], request, granted);
    if (!granted) throw new AccessDeniedException();
  };
  if (byRoles) return decided(true);
  const verdict = allowIf(securityContext(request));
  if (isThenable(verdict)) return Promise.resolve(verdict).then((granted) => decided(granted === true));
  decided(verdict === true);
}

/** ChannelListener::supports: the rule's channel is not the request's. Logged as Symfony logs it (INFO, security). */
export function wrongChannel(request: KernelRequest, rule: AccessRule): boolean {
  if (rule.channel === 'https' && !request.isSecure()) {
    const logger = request.logger;
    // The hint matters most behind a proxy that is not trusted: the redirect would then loop.
    if (request.headers.get('x-forwarded-proto') === 'https') logger.info('security', 'Redirecting to HTTPS. ("X-Forwarded-Proto" header is set to "https" - did you set "trusted_proxies" correctly?)');
    else if ((request.headers.get('forwarded') ?? '').includes('proto=https')) logger.info('security', 'Redirecting to HTTPS. ("Forwarded" header is set to "proto=https" - did you set "trusted_proxies" correctly?)');
    else logger.info('security', 'Redirecting to HTTPS.');
    return true;
  }
  if (rule.channel === 'http' && request.isSecure()) {
    request.logger.info('security', 'Redirecting to HTTP.');
    return true;
  }
  return false;
}

/**
 * ChannelListener::createRedirectResponse (RetryAuthenticationEntryPoint before 5.4): a 301 to the same
 * path and normalised query on the other scheme, at its default port (Symfony's http_port / https_port).
 */
export function channelRedirect(request: KernelRequest): HttpResponse {
  const scheme = request.isSecure() ? 'http' : 'https';
  const qs = request.getQueryString();
  return HttpResponse.redirect(`${scheme}://${request.getHost()}${request.pathInfo}${qs === null ? '' : `?${qs}`}`, 301);
}

const OPTION = 'createApp option "accessControl"';

/**
 * Compiles the `accessControl` option, refusing what Symfony's configuration refuses (an empty rule, an
 * IP that is none) and what could only fail later or silently here: an unknown key (a misspelt `role`
 * would leave a path open), a pattern that does not compile, a role that is not a string. Null when
 * there are no rules, so that the firewall keeps its listener without access control.
 */
/**
 * @param customVoters The app has voters of its own: any attribute may be theirs, so a role name no
 *   built-in voter decides is not refused.
 */
export function compileAccessControl(value: unknown, customVoters = false): AccessMap | null {
  if (value === undefined) return null;
  if (!Array.isArray(value)) throw new Error(`${OPTION} must be an array of rules ({ path?, host?, methods?, ips?, port?, roles?, allowIf?, requiresChannel? }).`);
  if (value.length === 0) return null;
  return new AccessMap(value.map((rule, index) => compileRule(rule, index, customVoters)));
}

function compileRule(rule: unknown, index: number, customVoters: boolean): AccessRule {
  const fail = (what: string) => new Error(`${OPTION}: rule ${index} ${what}.`);
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) throw fail('must be an object ({ path?, roles?, … })');
  const r = rule as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if ((RULE_KEYS as readonly string[]).includes(key)) continue;
    const meant = meantName(key, RULE_KEYS);
    throw fail(`has an unknown key "${key}"${meant !== null ? ` (did you mean "${meant}"?)` : ''}; the keys are ${RULE_KEYS.join(', ')}`);
  }
  // SecurityExtension refuses a rule whose every value is empty (`array_filter`): it would match every
  // request and ask nothing, hiding the rules after it ("One or more access control items are empty").
  if (RULE_KEYS.every((key) => isEmpty(r[key]))) throw fail('is empty');

  const path = pattern(r.path, '', () => fail(`"path" must be a regex (a string or a RegExp), got ${describe(r.path)}`), (error) => fail(`"path" ${error}`), true);
  const host = pattern(r.host, 'i', () => fail(`"host" must be a regex (a string or a RegExp), got ${describe(r.host)}`), (error) => fail(`"host" ${error}`));
  const methods = list(r.methods, (refused) => fail(`"methods" must be a method or a list of methods, got ${describe(refused)}`));
  for (const method of methods ?? []) if (!/^[A-Za-z]+$/.test(method)) throw fail(`"methods" has "${method}", which is no method`);
  const ipList = list(r.ips, (refused) => fail(`"ips" must be an IP, a CIDR range or a list of them, got ${describe(refused)}`));
  for (const ip of ipList ?? []) if (!validIp(ip)) throw fail(`"ips" has "${ip}", which is not a valid IP address or range`);
  if (r.port !== undefined && !(Number.isInteger(r.port) && (r.port as number) >= 0 && (r.port as number) <= 65535)) throw fail(`"port" must be a port number, got ${describe(r.port)}`);
  const roles = list(r.roles, (refused) => fail(`"roles" must be a role or a list of roles (non-empty strings), got ${describe(refused)}`)) ?? [];
  for (const role of roles) {
    if (!customVoters && !isVotedAttribute(role)) throw fail(`"roles" has "${role}", which no voter decides (it would deny everyone): roles start with ROLE_, or use IS_AUTHENTICATED_FULLY, IS_AUTHENTICATED_REMEMBERED, IS_AUTHENTICATED, IS_REMEMBERED or PUBLIC_ACCESS`);
  }
  if (r.allowIf !== undefined && typeof r.allowIf !== 'function') {
    throw fail(`"allowIf" must be a function (context) => boolean${typeof r.allowIf === 'string' ? ': Symfony expressions are not evaluated, write the condition as a function' : `, got ${describe(r.allowIf)}`}`);
  }
  if (r.requiresChannel !== undefined && r.requiresChannel !== 'http' && r.requiresChannel !== 'https') throw fail(`"requiresChannel" must be "http" or "https", got ${describe(r.requiresChannel)}`);

  const allowIf = (r.allowIf as SecurityPredicate | undefined) ?? null;
  const onlyPublic = roles.length === 1 && (roles[0] === 'PUBLIC_ACCESS' || roles[0] === 'IS_AUTHENTICATED_ANONYMOUSLY');
  return Object.freeze({
    path,
    pathBytes: typeof r.path === 'string',
    host,
    methods: methods === null || methods.length === 0 ? null : Object.freeze(methods.map((m) => m.toUpperCase())),
    ips: ipList === null || ipList.length === 0 ? null : new IpMatcher(ipList),
    port: (r.port as number | undefined) ?? 0,
    roles: Object.freeze(roles),
    allowIf,
    checksAccess: allowIf !== null || (roles.length > 0 && !onlyPublic),
    channel: (r.requiresChannel as 'http' | 'https' | undefined) ?? null,
  });
}

/**
 * A regex option: a string compiled with `flags` (as its UTF-8 bytes when `bytes`, byte-path.ts), or a RegExp
 * without its `g`/`y` state (and with `flags` added).
 */
function pattern(value: unknown, flags: string, wrongType: () => Error, badSource: (message: string) => Error, bytes = false): RegExp | null {
  if (value === undefined) return null;
  if (value instanceof RegExp) {
    const own = value.flags.replace(/[gy]/g, '');
    return new RegExp(value.source, own.includes(flags) ? own : own + flags);
  }
  if (typeof value !== 'string') throw wrongType();
  try {
    // Compiled as written first, so that a syntax error quotes the pattern the application wrote.
    const compiled = compilePcre(value, flags);
    const source = bytes ? utf8ByteString(value) : value;
    return source === value ? compiled : compilePcre(source, flags);
  } catch (error) {
    throw badSource(`does not compile: ${(error as Error).message}`);
  }
}

/**
 * A string (split at commas, as SecurityBundle's configuration splits one) or an array of non-empty
 * strings; `wrongType` gets the value refused (the array's entry when one is wrong).
 */
function list(value: unknown, wrongType: (refused: unknown) => Error): string[] | null {
  if (value === undefined) return null;
  const entries = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(entries)) throw wrongType(value);
  const bad = entries.find((entry) => typeof entry !== 'string' || entry.trim() === '');
  if (bad !== undefined) throw wrongType(bad);
  return (entries as string[]).map((entry) => entry.trim());
}

/** SecurityExtension::isValidIp: an address as filter_var validates one, or one with a decimal prefix length within its family. */
function validIp(entry: string): boolean {
  const slash = entry.indexOf('/');
  if (slash < 0) return isIp(entry);
  const address = entry.slice(0, slash);
  const bits = entry.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(bits) || !isIp(address)) return false;
  return Number(bits) <= (address.includes(':') ? 128 : 32);
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === 0 || (Array.isArray(value) && value.length === 0);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `"${value}"`;
  if (typeof value === 'function') return 'a function';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return String(value);
}
