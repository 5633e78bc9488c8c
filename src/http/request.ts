import {
  BadRequestException,
  ConflictingHeadersException,
  FrameworkError,
  JsonException,
  PayloadTooLargeHttpException,
  SessionNotFoundException,
  SuspiciousOperationException,
} from '../kernel/exceptions.ts';
import { parseCookieHeader } from './cookies.ts';
import { asPhpArrays, decodeJsonLikePhp } from './json-decode.ts';
import { now } from '../kernel/clock.ts';
import { headerText, safeDecode } from './url-encode.ts';
import type { Listener, ListenerCall } from '../kernel/hooks.ts';
import { Logger, type LogStream } from '../log/logger.ts';
import { LEVELS, type LevelName } from '../log/levels.ts';
import type { LogRecord } from '../log/record.ts';
import { isIp, type IpMatcher } from './ip.ts';
import { parseCacheControl } from '../listeners/cache-control.ts';
import { combineHeaderParts, phpTrim, splitHeader } from './header-utils.ts';
import { HeaderBag, ParameterBag } from './parameter-bag.ts';
import type { Session } from './session.ts';
import type { HttpResponse } from './response.ts';
import { isDigits, readStreamBounded, type RequestSource } from './source.ts';
import { nullRecord } from './null-record.ts';
import { remember } from './remember.ts';
import { UrlGeneratorInterface, type GenerateOptions, type ReferenceType } from '../routing/router.ts';
import type { RoleHierarchy } from '../security/role-hierarchy.ts';
import type { Voter } from '../security/voter.ts';

/** Per-app settings the request model needs; built once by the app (see app/config.ts). */
export interface RequestSettings {
  trustedProxies: IpMatcher;
  /** The forwarded headers believed from trusted proxies (TRUSTED_HEADERS); absent: all of them (CONTRACT §2). */
  trustedHeaders?: ReadonlySet<TrustedHeader>;
  trustedHosts: RegExp[];
  /** Largest body, in bytes, that `content()` accepts. */
  bodyLimit: number;
  /** Symfony's framework.http_method_override: `_method` in body/query overrides POST. */
  httpMethodOverride: boolean;
  defaultLocale: string;
  /** The app's log stream; each request logs through its own Logger over it. */
  logStream: LogStream;
  /** Debug mode: requests keep their log records and listener trace. */
  debug: boolean;
  /** The app's URL generator (Router.generate), for `generateUrl`; absent in a request built without an app. */
  generateUrl?: (name: string, params: Record<string, unknown>, options: GenerateOptions) => string;
  /** createApp's `requestIdHeader`, lower-cased: the header a request id is taken from when it is well-formed. */
  requestIdHeader?: string;
  /** The session cookie's name (SESSION_COOKIE_NAME), for `hasPreviousSession`; absent in a request built without an app. */
  sessionCookieName?: string;
  /** createApp's `roleHierarchy`, compiled: what the firewall and logIn give a member's `reachableRoles`. Absent: none. */
  roleHierarchy?: RoleHierarchy | null;
  /** createApp's `voters`, asked after the role voters (security/voter.ts). Absent: none. */
  voters?: readonly Voter[] | null;
}

/** A request id taken from a header: short, and nothing a log line or a header would have to escape. */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The headers TRUSTED_HEADERS may name (Symfony's framework.trusted_headers values). */
export const TRUSTED_HEADER_NAMES = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port'] as const;
export type TrustedHeader = (typeof TRUSTED_HEADER_NAMES)[number];

const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'PATCH', 'PURGE', 'TRACE']);
// Symfony's host pattern, rewritten without nested quantifiers (the original backtracks exponentially in JS).
const VALID_HOST = /^\[?[a-zA-Z0-9\-:\]_]+(?:\.[a-zA-Z0-9\-:\]_]+)*\.?$/;
const PORT_SUFFIX = /:\d+$/;
const ASCII_UPPER = /[A-Z]+/g;
const ASCII_LOWER = /[a-z]+/g;
const JSON_WORD = /json/i;
/** PCRE's `\s` without the `u` flag: space, tab, LF, VT, FF, CR. */
const LEADING_PCRE_BLANKS = /^[ \t\n\v\f\r]+/;
const TRAILING_PCRE_BLANKS = /[ \t\n\v\f\r]+$/;
/**
 * Host header as sent → its validated, lower-cased host without port. A pure function of the header,
 * so it is remembered: a service sees a handful of distinct hosts, and the two regular expressions
 * would otherwise run on every request. Bounded in count and length (a DNS name has at most 253
 * characters, plus a port): longer ones are checked each time. Emptied when full rather than closed to new
 * hosts, so that a scanner's burst of random Hosts does not leave the service's own unremembered for good.
 */
const validHosts = new Map<string, string>();
const VALID_HOSTS_KEPT = 64;
const HOST_LENGTH_KEPT = 270;
/** What an untrusted peer forwards: shared, so the common case allocates nothing. */
const NOTHING_FORWARDED: readonly string[] = Object.freeze([]);

let requestCounter = 0;
const requestIdPrefix = Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, '0');

/**
 * The kernel's request: Symfony's Request over a host-provided source. Everything is lazy — the query
 * string, cookies, host, forwarded headers and body are parsed on first use, so a request that only
 * routes pays only for its path.
 */
export class KernelRequest {
  /** Route parameters and listener data (`_route`, `_controller`, `_locale`, ...). */
  readonly attributes = new ParameterBag();
  readonly isMainRequest: boolean;
  /** performance.now() when the kernel received the request. */
  readonly startTime: number = now();
  /** Every listener call, in call order (debug mode only; null otherwise). */
  readonly trace: ListenerCall[] | null;
  /**
   * kernel.exception listeners registered for this request only, run before the app's table (Symfony's
   * firewall adds its ExceptionListener to the dispatcher while it handles a request).
   */
  exceptionListeners: Listener<'kernel.exception'>[] | null = null;
  /** The event whose propagation a listener stopped last (KernelEvent.stopPropagation). */
  stoppedEvent: object | null = null;
  private _logger: Logger | undefined;
  private _collected: Record<string, unknown> | undefined;

  private _request: ParameterBag | undefined;
  private _query: ParameterBag | undefined;
  private _cookies: ParameterBag | undefined;
  private _cookieHeader: string | null | undefined;
  private _headers: HeaderBag | undefined;
  private _method: string | undefined;
  private _pathInfo: string | undefined;
  private _host: string | undefined;
  /** The headers' version `_host` was computed from: a listener that sets Host or a forwarded header gets a new answer. */
  private _hostVersion = 0;
  private hostValid = true;
  /** Symfony's isForwardedValid: cleared by the first forwarded-header conflict, which is thrown once (forwardedValues). */
  private forwardedValid = true;
  private _requestId: string | undefined;
  private _content: Promise<Uint8Array> | undefined;
  private _locale: string | undefined;
  private sessionFactory: ((request: KernelRequest) => Session) | null = null;
  private _session: Session | null = null;
  /**
   * @internal The response the SessionListener saw at kernel.response: a session used after its save
   * (even one first created then) is saved again into it at kernel.finish_request. A field, not a map
   * keyed by request: it is set on every main request.
   */
  sessionSaveResponse: HttpResponse | null = null;
  defaultLocale: string;

  constructor(
    readonly source: RequestSource,
    readonly settings: RequestSettings,
    isMainRequest = true,
  ) {
    this.isMainRequest = isMainRequest;
    this.defaultLocale = settings.defaultLocale;
    this.trace = settings.debug ? [] : null;
  }

  /** This request's logger: writes to the app's stream, keeps records in debug mode (bounded). */
  get logger(): Logger {
    return (this._logger ??= new Logger(this.settings.logStream, this.settings.debug, () => ({
      url: this.target,
      http_method: this.realMethod,
      request_id: this.requestId,
    })));
  }

  /** Whether a record at `level` would be written or kept: checked without creating the logger. */
  logs(level: LevelName): boolean {
    return this._logger ? this._logger.isEnabled(level) : this.settings.debug || this.settings.logStream.accepts(LEVELS[level]);
  }

  /** Log records kept for this request (debug mode), oldest first. */
  get logRecords(): readonly LogRecord[] {
    return this._logger?.records ?? [];
  }

  /** What data collectors gathered for the profile, by collector name (debug mode). */
  get collected(): Record<string, unknown> {
    return (this._collected ??= Object.create(null) as Record<string, unknown>);
  }

  /** Body parameters: filled from JSON or form bodies by JsonRequestTransformerListener. */
  get request(): ParameterBag {
    return (this._request ??= new ParameterBag());
  }

  get query(): ParameterBag {
    return (this._query ??= new ParameterBag(parseQuery(this.queryString, () => inputVarsExceeded(this, 'query string'))));
  }

  /** As `$_COOKIE`: a value is a string, or nested parameters for names such as `a[x]`. */
  get cookies(): ParameterBag {
    return (this._cookies ??= new ParameterBag(parseCookies(this.cookieHeader, () => inputVarsExceeded(this, 'cookie header'))));
  }

  /** The raw Cookie header, read from the host once (several listeners ask before parsing it). */
  get cookieHeader(): string | null {
    return this._cookieHeader === undefined ? (this._cookieHeader = this.source.header('cookie')) : this._cookieHeader;
  }

  get headers(): HeaderBag {
    return (this._headers ??= new HeaderBag(this.source));
  }

  /**
   * A short id for log lines and the profile; unique within the process, unless createApp's
   * `requestIdHeader` names a header that carries a well-formed one.
   */
  get requestId(): string {
    return (this._requestId ??= this.givenRequestId() ?? `${requestIdPrefix}-${(++requestCounter).toString(36)}`);
  }

  private givenRequestId(): string | null {
    const header = this.settings.requestIdHeader;
    if (header === undefined) return null;
    const value = this.source.header(header);
    return value !== null && WELL_FORMED_REQUEST_ID.test(value) ? value : null;
  }

  /** The method as sent, upper-cased. */
  get realMethod(): string {
    return this.source.method.toUpperCase();
  }

  /**
   * The effective method: POST may be overridden by `X-HTTP-Method-Override` (and `_method` when
   * enabled); an override that is not letters only is a SuspiciousOperationException (400).
   */
  get method(): string {
    if (this._method !== undefined) return this._method;
    const real = this.realMethod;
    this._method = real;
    if (real !== 'POST') return real;
    let override: unknown = this.headers.get('x-http-method-override');
    // Symfony's `!$method`: a missing or empty header (or "0") falls through to `_method`, the body's
    // when it has one (even null), else the query's. An empty `_method` is a string, so refused below.
    if ((!override || override === '0') && this.settings.httpMethodOverride) {
      const body = this.request;
      override = body.has('_method') ? body.get('_method') : this.query.get('_method');
    }
    if (typeof override !== 'string') return real;
    // PHP's strtoupper (Request::getMethod) upper-cases ASCII letters only: JavaScript's toUpperCase would
    // turn `poſt` into POST and `paßt` into PASST, overrides Symfony refuses as not letters only.
    const upper = override.replace(ASCII_LOWER, (c) => c.toUpperCase());
    if (!STANDARD_METHODS.has(upper) && !/^[A-Z]+$/.test(upper)) {
      throw new SuspiciousOperationException(`Invalid method override "${upper}".`);
    }
    return (this._method = upper);
  }

  setMethod(method: string): void {
    this._method = method.toUpperCase();
  }

  /** The raw target: path and query exactly as sent (absolute-form reduced to its path and query). */
  get target(): string {
    const t = this.source.target;
    if (t[0] === '/') return withoutFragment(t);
    if (t === '*') return t;
    const scheme = t.indexOf('://');
    return scheme < 0 ? '/' + withoutFragment(t) : absoluteFormTarget(t, scheme + 3);
  }

  /**
   * The raw path: percent-encoding kept, dot segments and backslashes untouched. Always starts with `/`
   * (Symfony's preparePathInfo), so `OPTIONS *` routes and reports `/*`, and the absolute URL in the
   * 404 message stays well-formed.
   */
  get pathInfo(): string {
    if (this._pathInfo !== undefined) return this._pathInfo;
    const t = this.target;
    const q = t.indexOf('?');
    const p = q < 0 ? t : t.slice(0, q);
    return (this._pathInfo = p[0] === '/' ? p : '/' + p);
  }

  /** The raw query string without `?` ('' when none). */
  get queryString(): string {
    const t = this.target;
    const q = t.indexOf('?');
    return q < 0 ? '' : t.slice(q + 1);
  }

  // --- host, port, scheme (Symfony's Request::getHost/getPort/getScheme, trusted proxies) ---

  /** True when the direct peer is a configured trusted proxy. */
  get isFromTrustedProxy(): boolean {
    const proxies = this.settings.trustedProxies;
    if (proxies.isEmpty) return false;
    return proxies.trustsPeer || proxies.matches(this.source.remoteAddress);
  }

  /**
   * Values of one forwarded field from the trusted `Forwarded` and `X-Forwarded-*` headers. When both
   * are present and disagree, that is a ConflictingHeadersException (Symfony's wording). A header left
   * out of TRUSTED_HEADERS is not read at all, as Symfony's getTrustedValues skips the headers outside
   * its trusted header set: it sets no host, scheme, port or address, and conflicts with nothing.
   *
   * The two lists are compared as Symfony's getTrustedValues compares them:
   * - `for`: each as the client chain it gives (`clientChain`: trusted proxies left out, nearest first),
   *   so two headers naming the same client through different trusted hops agree, and this returns
   *   that chain;
   * - `port`: a `Forwarded` host without a port stands for the scheme's default port, so it disagrees
   *   with an X-Forwarded-Port naming another.
   *
   * X-Forwarded-* values are read as Symfony reads them, split at commas and trimmed, an empty one kept
   * (a header sent empty is one empty value); `Forwarded` as its HeaderUtils splits it (parseForwarded).
   * The conflict is thrown once, as Symfony's isForwardedValid: afterwards (the error page, the log, the
   * profile) a conflicting field answers as Symfony's does, `0.0.0.0` then the peer for the client
   * chain, no forwarded value for the others.
   */
  forwardedValues(field: 'for' | 'host' | 'proto' | 'port'): readonly string[] {
    if (!this.isFromTrustedProxy) return NOTHING_FORWARDED;
    const trusted = this.settings.trustedHeaders;
    const xName = `x-forwarded-${field}` as const;
    const x = trusted === undefined || trusted.has(xName) ? this.headers.get(xName) : null;
    let xValues = x === null ? [] : x.split(',').map(phpTrim);
    const fwd = trusted === undefined || trusted.has('forwarded') ? this.headers.get('forwarded') : null;
    let fValues = fwd ? parseForwarded(fwd, field === 'port' ? 'host' : field) : [];
    if (field === 'for') {
      xValues = this.clientChain(xValues);
      fValues = this.clientChain(fValues);
    } else if (field === 'port' && fValues.length) {
      // What Symfony compares: the text after the host's last `:`, or the scheme's default port.
      const fallback = this.isSecure() ? '443' : '80';
      fValues = fValues.map((host) => {
        const colon = host.lastIndexOf(':');
        return colon < 0 || host.endsWith(']') ? fallback : host.slice(colon + 1);
      });
    }
    if (xValues.length && fValues.length && !sameValues(xValues, fValues)) {
      if (!this.forwardedValid) return field === 'for' ? ['0.0.0.0', this.source.remoteAddress] : NOTHING_FORWARDED;
      this.forwardedValid = false;
      throw new ConflictingHeadersException(
        `The request has both a trusted "FORWARDED" header and a trusted "${xName.toUpperCase().replace(/-/g, '_')}" header, conflicting with each other. You should either configure your proxy to remove one of them, or configure your project to distrust the offending one.`,
      );
    }
    return fValues.length ? fValues : xValues;
  }

  /**
   * Symfony's normalizeAndFilterClientIps: the forwarded values read as addresses (`clientIps`), then
   * the peer, without those in trusted ranges, nearest first. When every one is trusted or no value is
   * an address, the first trusted one in header order (the peer, which is trusted, when nothing came
   * before it). No values at all: none.
   */
  private clientChain(values: readonly string[]): string[] {
    if (values.length === 0) return [];
    const peer = this.source.remoteAddress;
    const proxies = this.settings.trustedProxies;
    const untrusted: string[] = [];
    let firstTrusted: string | null = null;
    for (const ip of clientIps(values)) {
      // `REMOTE_ADDR` in TRUSTED_PROXIES trusts the peer's address, wherever it appears (Symfony substitutes it).
      if (proxies.matches(ip) || (proxies.trustsPeer && ip === peer)) firstTrusted ??= ip;
      else untrusted.push(ip);
    }
    return untrusted.length ? untrusted.reverse() : [firstTrusted ?? peer];
  }

  /** The Host as sent (forwarded host from a trusted proxy first), before validation. */
  private rawHost(): string {
    const forwarded = this.forwardedValues('host');
    if (forwarded.length) return forwarded[0];
    return this.hostHeader();
  }

  /**
   * The `Host` header, or — missing, empty or `0`, as Symfony falls back to SERVER_NAME/SERVER_ADDR and
   * SERVER_PORT — the host's own authority for this connection (`source.fallbackHost`).
   */
  private hostHeader(): string {
    // Through the HeaderBag once there is one: a listener may have set the Host (Symfony reads $this->headers).
    const header = this._headers !== undefined ? this._headers.get('host') : this.source.header('host');
    // `!$host = $this->headers->get('HOST')` (getHost, getPort): "0" is PHP-falsy, so it is no Host either.
    return header && header !== '0' ? header : this.source.fallbackHost;
  }

  /**
   * Lower-cased host without port. An invalid or untrusted host throws once; afterwards this request
   * answers '' so that the error page can still be built (Symfony's isHostValid flag). The answer is
   * remembered until a listener changes a header (`headers.set('host', …)`): Symfony's getHost reads the
   * headers on every call.
   */
  getHost(): string {
    const version = this._headers?.version ?? 0;
    if (this._host !== undefined && this._hostVersion === version) return this._host;
    if (!this.hostValid && this._hostVersion === version) return '';
    this._hostVersion = version;
    this._host = undefined;
    const raw = this.rawHost();
    let host = validHosts.get(raw);
    if (host === undefined) {
      // ASCII lower-casing, as PHP 8's strtolower: other bytes stay as sent (and are shown decoded).
      // PHP's trim (Request::getHost), not JavaScript's: a no-break space (0xA0) or form feed stays and
      // makes the host invalid, where String#trim would drop it and accept `a.test\xA0` as `a.test`.
      const sent = phpTrim(raw).replace(ASCII_UPPER, (c) => c.toLowerCase());
      host = sent.replace(PORT_SUFFIX, '');
      // A port beyond 65535 is no port (it would print as `1e+23`): the Host is shown with it, since it is what is wrong.
      const invalid = host && !VALID_HOST.test(host) ? host : hasInvalidPort(sent, host) ? sent : null;
      if (invalid !== null) {
        if (!this.hostValid) return '';
        this.hostValid = false;
        throw new SuspiciousOperationException(`Invalid Host "${headerText(invalid)}".`);
      }
      if (raw.length <= HOST_LENGTH_KEPT) remember(validHosts, VALID_HOSTS_KEPT, raw, host);
    }
    const trusted = this.settings.trustedHosts;
    if (trusted.length && !trusted.some((re) => re.test(host))) {
      if (!this.hostValid) return '';
      this.hostValid = false;
      throw new SuspiciousOperationException(`Untrusted Host "${host}".`);
    }
    return (this._host = host);
  }

  isSecure(): boolean {
    const proto = this.forwardedValues('proto');
    if (proto.length) return ['https', 'on', 'ssl', '1'].includes(proto[0].toLowerCase());
    return this.source.scheme === 'https';
  }

  getScheme(): 'http' | 'https' {
    return this.isSecure() ? 'https' : 'http';
  }

  /**
   * The port from the trusted forwarded port, else the trusted forwarded host, else the Host header,
   * else the scheme's default. Only a real port (digits, 0–65535) is taken: a longer number would be
   * written in exponent notation into Location and X-Debug-Token-Link. An X-Forwarded-Port that is no
   * port is ignored, as one that is not digits always was: Symfony's getPort never throws (it casts
   * with `(int)`), and forwarded headers are only refused when they conflict. A Host carrying such a
   * port is refused by getHost (400 `Invalid Host`); the error page then gets the default port.
   */
  getPort(): number {
    if (this.isFromTrustedProxy) {
      const port = this.forwardedValues('port');
      // getTrustedValues reads X-Forwarded-Port as `0.0.0.0:<port>`, then as a Host: `0` is no port there
      // either, and the scheme's default port (not the forwarded host's).
      if (port.length && port[0] === '0') return this.isSecure() ? 443 : 80;
      if (port.length && isPort(port[0])) return Number(port[0]);
      const host = this.forwardedValues('host');
      if (host.length) return portOrDefault(host[0], this.isSecure());
    }
    return portOrDefault(this.hostHeader(), this.isSecure());
  }

  /** Host plus `:port` when the port is not the scheme's default. */
  getHttpHost(): string {
    const scheme = this.getScheme();
    const port = this.getPort();
    const host = this.getHost();
    return (scheme === 'http' && port === 80) || (scheme === 'https' && port === 443) ? host : `${host}:${port}`;
  }

  getSchemeAndHttpHost(): string {
    return `${this.getScheme()}://${this.getHttpHost()}`;
  }

  /** Absolute URL of a path on this host, without query string (Symfony's getUriForPath). */
  getUriForPath(path: string): string {
    return this.getSchemeAndHttpHost() + path;
  }

  /**
   * CONTRACT §4.3 (Symfony's AbstractController::generateUrl): the path of a named route with `params`
   * filled in (others become the query string; a `_locale` variable not given is this request's
   * locale). The third argument is a UrlGeneratorInterface reference type, with this request as the
   * router context:
   * - ABSOLUTE_PATH (the default): `/members/7`;
   * - ABSOLUTE_URL: this request's scheme and host first, `http://host:port/members/7`;
   * - NETWORK_PATH: the host without the scheme, `//host:port/members/7`;
   * (both a plain path when the host is unknown, as after an invalid Host, as Symfony's generator);
   * - RELATIVE_PATH: relative to this request's raw path info, `../members/7` from `/posts/3`.
   * The older `{ absolute: true }` is ABSOLUTE_URL and `{}` ABSOLUTE_PATH. Anything else (another number,
   * a numeric string, `true`, null) is a TypeError: a reference type from another API would otherwise give
   * a URL of the wrong kind without a word. Unknown route → Error.
   */
  generateUrl(name: string, params: Record<string, unknown> = {}, referenceType: ReferenceType | { absolute?: boolean } = {}): string {
    const type = referenceTypeOf(referenceType);
    const generate = this.settings.generateUrl;
    if (!generate) throw new Error('generateUrl needs a request made by an app (createApp).');
    // The request's locale fills a `_locale` variable the caller left out (Symfony's router context).
    const context = { _locale: this.locale };
    return generate(name, params, this.generateOptions(type, context));
  }

  /** What Router.generate needs for a reference type, from this request as Symfony's RequestContext. */
  private generateOptions(type: ReferenceType, context: Readonly<Record<string, unknown>>): GenerateOptions {
    switch (type) {
      // Symfony adds no scheme or authority for an empty host (a Host already refused): `http:///x` and
      // `//:8080/x` would name no host at all, so both give the path.
      case UrlGeneratorInterface.ABSOLUTE_URL:
        return this.getHost() === '' ? { context } : { absoluteBase: this.getSchemeAndHttpHost(), context };
      case UrlGeneratorInterface.NETWORK_PATH:
        return this.getHost() === '' ? { context } : { absoluteBase: '//' + this.getHttpHost(), context };
      case UrlGeneratorInterface.RELATIVE_PATH:
        return { relativeTo: this.pathInfo, context };
      default:
        return { context };
    }
  }

  /** Absolute URL with the normalised query string (keys sorted), as in the `Matched route` log. */
  getUri(): string {
    const qs = normalizeQueryString(this.queryString);
    return this.getUriForPath(this.pathInfo) + (qs ? `?${qs}` : '');
  }

  /**
   * The client's address chain, nearest first, as Symfony's getClientIps: the forwarded addresses (from
   * a trusted proxy only) and the peer, without those in trusted ranges, reversed; so the last is the
   * address the first proxy saw, and the first is the client's as far as it can be told (getClientIp).
   * When every address is trusted, the first trusted one in header order (Symfony's fallback).
   */
  getClientIps(): string[] {
    const peer = this.source.remoteAddress;
    if (!this.isFromTrustedProxy) return [peer];
    const chain = this.forwardedValues('for');
    return chain.length ? (chain as string[]) : [peer];
  }

  getClientIp(): string {
    return this.getClientIps()[0] ?? '';
  }

  isXmlHttpRequest(): boolean {
    return this.headers.get('x-requested-with') === 'XMLHttpRequest';
  }

  /** The part of Content-Type before `;`, trimmed, lower-cased (media types are case-insensitive, RFC 9110); '' when absent. */
  get contentType(): string {
    const ct = this.source.header('content-type');
    if (!ct) return '';
    const semi = ct.indexOf(';');
    return (semi < 0 ? ct : ct.slice(0, semi)).trim().toLowerCase();
  }

  // --- body ---

  /**
   * The raw body, read once and bounded by BODY_LIMIT: a declared Content-Length over the limit is
   * refused before reading; a chunked body is cut off as soon as it passes the limit (413 either way).
   */
  content(): Promise<Uint8Array> {
    return (this._content ??= readBounded(this.source, this.settings.bodyLimit));
  }

  /** A declared Content-Length over BODY_LIMIT is a 413 whether or not anything reads the body (CONTRACT §8.2). */
  refuseOversizedBody(): void {
    refuseDeclaredOverLimit(this.source, this.settings.bodyLimit);
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.content());
  }

  /** True once the body has been asked for (the profiler only records bodies that were read). */
  get contentRead(): boolean {
    return this._content !== undefined;
  }

  // --- locale ---

  get locale(): string {
    return this._locale ?? this.defaultLocale;
  }
  setLocale(locale: string): void {
    this._locale = locale;
  }

  // --- session ---

  /** The factory gets the request, so one function serves every request (no closure per request). */
  setSessionFactory(factory: (request: KernelRequest) => Session): void {
    this.sessionFactory = factory;
  }
  hasSession(): boolean {
    return this._session !== null || this.sessionFactory !== null;
  }
  /**
   * Symfony's hasPreviousSession: the request has a session and sent the session cookie, so a session
   * may be stored from an earlier request. Neither creates nor reads the session.
   */
  hasPreviousSession(): boolean {
    const name = this.settings.sessionCookieName;
    return name !== undefined && this.hasSession() && this.cookieHeader !== null && this.cookies.has(name);
  }
  /** Whether a session was created for this request (without creating one). */
  get sessionIfCreated(): Session | null {
    return this._session;
  }
  getSession(): Session {
    if (this._session) return this._session;
    if (!this.sessionFactory) throw new SessionNotFoundException('Session has not been set.');
    return (this._session = this.sessionFactory(this));
  }

  /**
   * The `Accept` preference: true when JSON is preferred over HTML. The types are read as
   * getAcceptableContentTypes reads them (AcceptHeader: by quality, ties in header order, a type listed
   * twice taking its last quality, `q=0` not acceptable); the first JSON or HTML one decides. Media types
   * are case-insensitive (RFC 9110 §8.3.1), so `Application/JSON` is JSON.
   */
  prefersJson(): boolean {
    const accept = this.headers.get('accept');
    // JSON can only win when a JSON type is listed (browsers, curl and `*/*` do not list one).
    if (!accept || !JSON_WORD.test(accept)) return false;
    for (const type of this.acceptValues('accept')) {
      const kind = mediaKind(type.toLowerCase());
      if (kind !== null) return kind === 'json';
    }
    return false;
  }

  // --- Symfony's Request methods, for code ported from it (README "Symfony HttpFoundation methods") ---
  // Thin names over the getters above; nothing here runs unless called.

  /**
   * Request::get: the first of `attributes`, `query` and `request` (the body) that has the key, else
   * `fallback` (undefined when none is given, as the bags' `get`). A key that is present counts
   * whatever its value: an attribute set to null answers null and hides a query parameter of that name.
   * Symfony itself advises reading the bag that should hold the value instead. Typed as the bags'
   * `get` is on a request, whose bags hold `unknown`: `unknown | T` is `unknown`, so one signature.
   */
  get(key: string, fallback?: unknown): unknown {
    // `has` before `get`: a bag's value may be null (an attribute) and must still win. The query and
    // body are parsed only when an earlier bag lacks the key.
    if (this.attributes.has(key)) return this.attributes.get(key);
    const query = this.query;
    if (query.has(key)) return query.get(key);
    const body = this.request;
    return body.has(key) ? body.get(key) : fallback;
  }
  /** Request::getMethod: the effective method (override applied). */
  getMethod(): string {
    return this.method;
  }
  /** Request::getRealMethod: the method as sent. */
  getRealMethod(): string {
    return this.realMethod;
  }
  /** Request::isMethod: the effective method, compared upper-cased. */
  isMethod(method: string): boolean {
    return this.method === method.toUpperCase();
  }
  /** Request::isMethodSafe: GET, HEAD, OPTIONS, TRACE. */
  isMethodSafe(): boolean {
    const m = this.method;
    return m === 'GET' || m === 'HEAD' || m === 'OPTIONS' || m === 'TRACE';
  }
  /** Request::isMethodIdempotent: HEAD, GET, PUT, DELETE, TRACE, OPTIONS, PURGE. */
  isMethodIdempotent(): boolean {
    const m = this.method;
    return m === 'HEAD' || m === 'GET' || m === 'PUT' || m === 'DELETE' || m === 'TRACE' || m === 'OPTIONS' || m === 'PURGE';
  }
  /** Request::isMethodCacheable: GET, HEAD. */
  isMethodCacheable(): boolean {
    const m = this.method;
    return m === 'GET' || m === 'HEAD';
  }
  /** Request::getPathInfo: the raw path (still percent-encoded), always starting with `/`. */
  getPathInfo(): string {
    return this.pathInfo;
  }
  /** Request::getRequestUri: path and query as sent (an absolute-form target reduced to them). */
  getRequestUri(): string {
    return this.target;
  }
  /** Request::getQueryString: normalised (sorted, RFC 3986 encoded); null when empty. */
  getQueryString(): string | null {
    const qs = normalizeQueryString(this.queryString);
    return qs === '' ? null : qs;
  }
  /** Request::getLocale. */
  getLocale(): string {
    return this.locale;
  }
  /** Request::getDefaultLocale. */
  getDefaultLocale(): string {
    return this.defaultLocale;
  }
  /** Request::getProtocolVersion: from a trusted proxy's `Via` (`1.0 proxy` → `HTTP/1.0`), else the connection's. */
  getProtocolVersion(): string {
    if (this.isFromTrustedProxy) {
      const via = /^(?:HTTP\/)?([1-9]\.[0-9]) /.exec(this.headers.get('via') ?? '');
      if (via !== null) return `HTTP/${via[1]}`;
    }
    return this.source.protocol;
  }
  /** Request::getContent: the raw body (bytes; `text()` decodes it). */
  getContent(): Promise<Uint8Array> {
    return this.content();
  }
  /**
   * Request::toArray: the JSON body as an object or a list (PHP's arrays: `{}` and objects keyed 0, 1, 2… are
   * lists, asPhpArrays), integers beyond 64 bits as strings of their
   * digits (Symfony decodes with JSON_BIGINT_AS_STRING). An empty body, what json_decode cannot
   * decode (invalid UTF-8, a byte-order mark, nesting past 512, an unpaired surrogate escape too) and a
   * scalar are JsonExceptions with Symfony's messages: a 400. `toArray<{ name: string }>()` types the
   * result as the caller expects it, unchecked.
   */
  async toArray<T extends Record<string, unknown> | unknown[] = Record<string, unknown> | unknown[]>(): Promise<T> {
    const bytes = await this.content();
    if (bytes.byteLength === 0) throw new JsonException('Request body is empty.');
    let text: string;
    let data: unknown;
    try {
      ({ data, text } = decodeJsonLikePhp(bytes));
    } catch (error) {
      throw new JsonException('Could not decode request body.', error);
    }
    // JSON_BIGINT_AS_STRING: an integer literal beyond 64 bits is its digits, as a string, not a lossy number.
    const exact = bigIntsAsStrings(text);
    if (exact !== null) data = JSON.parse(exact);
    if (data === null || typeof data !== 'object') {
      // get_debug_type: json_decode gives an int for `1` and a float for `1.0` or `1e3`.
      const type = data === null ? 'null' : typeof data === 'boolean' ? 'bool' : typeof data === 'string' ? 'string' : /[.eE]/.test(text) ? 'float' : 'int';
      throw new JsonException(`JSON content was expected to decode to an array, "${type}" returned.`);
    }
    // `T` is the caller's word for the shape (as Hono's `json<T>()`): nothing here checks it.
    return asPhpArrays(data) as T;
  }
  /**
   * Request::getETags: preg_split at `\s*,\s*` with PREG_SPLIT_NO_EMPTY: split at commas, the blanks
   * next to a comma dropped (PCRE's `\s`, ASCII only: String#trim also dropped a no-break space, so
   * `"a"\xA0` matched `"a"`), empty tags left out.
   */
  getETags(): string[] {
    const header = this.headers.get('if-none-match');
    if (!header) return [];
    const parts = header.split(',');
    const tags: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      let tag = parts[i]!;
      if (i > 0) tag = tag.replace(LEADING_PCRE_BLANKS, '');
      if (i < parts.length - 1) tag = tag.replace(TRAILING_PCRE_BLANKS, '');
      if (tag !== '') tags.push(tag);
    }
    return tags;
  }
  /** Request::isNoCache: a `no-cache` Cache-Control directive, or `Pragma: no-cache`. */
  isNoCache(): boolean {
    const cacheControl = this.headers.get('cache-control');
    return (cacheControl !== null && parseCacheControl(cacheControl).has('no-cache')) || this.headers.get('pragma') === 'no-cache';
  }

  /**
   * AcceptHeader::fromString($header)->all(), as values: sorted by quality (ties in header order), a
   * value listed twice counted once with its last quality. Entries are split as AcceptHeader splits them,
   * with HeaderUtils::split(',;='), so quoted parameters (`q="0.8"`, `x="a,b"`) and blanks around `=`
   * read as in Symfony, and a quality is PHP's `(float)` of its text (`0.9x` is 0.9, text without a
   * leading number is 0). Unlike Symfony 5.4, a `q=0` entry ("not acceptable", RFC 9110
   * §12.4.2) is left out, and at most 32 entries within 2,048 characters are read (leadingEntries).
   */
  private acceptValues(name: string): string[] {
    const header = this.headers.get(name);
    if (!header) return [];
    const items = new Map<string, { q: number; at: number }>();
    const elements = splitHeader(leadingEntries(header), ',;=') as string[][][];
    const count = Math.min(elements.length, MAX_ACCEPT_ENTRIES);
    for (let at = 0; at < count; at++) {
      const [first, ...params] = elements[at]!;
      // An entry of separators only (`;;`) has no value: left out (Symfony's AcceptHeaderItem gets null and throws).
      const item = first?.[0];
      if (!item) continue;
      // AcceptHeaderItem::setAttribute: `(float) $value`; `q` without a value is PHP's true, 1.
      const quality = combineHeaderParts(params).get('q');
      const q = quality === undefined || quality === true ? 1 : phpFloat(quality);
      items.delete(item);
      items.set(item, { q, at });
    }
    return [...items].filter(([, { q }]) => q > 0).sort(([, a], [, b]) => b.q - a.q || a.at - b.at).map(([item]) => item);
  }
  /**
   * Request::getLanguages: the `Accept-Language` tags by preference, spelled as Symfony spells them
   * (`de-ch` → `de_CH`: primary subtag lower-cased, the others upper-cased; `i-klingon` → `klingon`).
   * The case is changed in ASCII letters only, as PHP's strtolower/strtoupper change it: JavaScript's
   * turned a header's `ÿ` into `Ÿ` (U+0178), which no header can carry, and `ß` into `SS`.
   */
  getLanguages(): string[] {
    return this.acceptValues('accept-language').map((tag) => {
      if (!tag.includes('-')) return tag;
      const codes = tag.split('-');
      if (codes[0] === 'i') return codes[1]!;
      return codes[0]!.replace(ASCII_UPPER, (c) => c.toLowerCase()) + codes.slice(1).map((c) => `_${c.replace(ASCII_LOWER, (l) => l.toUpperCase())}`).join('');
    });
  }
  /**
   * Request::getPreferredLanguage: without `locales`, the first language (null when none); otherwise
   * the first language — or, after it, its primary language when that is not listed itself — among
   * `locales`, else `locales[0]`.
   */
  getPreferredLanguage(): string | null;
  getPreferredLanguage(locales: readonly string[]): string | null;
  getPreferredLanguage(locales?: readonly string[]): string | null {
    const languages = this.getLanguages();
    if (!locales || locales.length === 0) return languages[0] ?? null;
    for (const language of languages) {
      if (locales.includes(language)) return language;
      const underscore = language.indexOf('_');
      if (underscore > 0) {
        const primary = language.slice(0, underscore);
        if (!languages.includes(primary) && locales.includes(primary)) return primary;
      }
    }
    return locales[0]!;
  }
  /** Request::getAcceptableContentTypes: the `Accept` media types by preference, as written. */
  getAcceptableContentTypes(): string[] {
    return this.acceptValues('accept');
  }
  /** Request::getFormat: the format of a MIME type (parameters ignored), null when unknown. */
  getFormat(mimeType: string | null): string | null {
    if (!mimeType) return null;
    const semi = mimeType.indexOf(';');
    const canonical = semi < 0 ? null : mimeType.slice(0, semi).trim();
    for (const format in KernelRequest.formats) {
      const types = KernelRequest.formats[format]!;
      if (types.includes(mimeType) || (canonical !== null && types.includes(canonical))) return format;
    }
    return null;
  }
  /** Request::getRequestFormat: the `_format` attribute, else `fallback`. */
  getRequestFormat(fallback: string | null = 'html'): string | null {
    const format = this.attributes.get('_format');
    return typeof format === 'string' ? format : fallback;
  }
  /** Request::getPreferredFormat: the request format, else that of the first acceptable type with one, else `fallback`. */
  getPreferredFormat(fallback: string | null = 'html'): string | null {
    const format = this.getRequestFormat(null);
    if (format !== null) return format;
    for (const type of this.getAcceptableContentTypes()) {
      const known = this.getFormat(type);
      if (known !== null) return known;
    }
    return fallback;
  }
  /** Request::getContentTypeFormat (5.4's getContentType): the format of the Content-Type, compared case-sensitively. */
  getContentTypeFormat(): string | null {
    return this.getFormat(this.headers.get('content-type', ''));
  }
  /** Request::getContentType in 5.4 (a format, unlike the `contentType` getter's MIME type). */
  getContentType(): string | null {
    return this.getContentTypeFormat();
  }

  /** Request::$formats as initializeFormats sets them (5.4). */
  private static readonly formats: Readonly<Record<string, readonly string[]>> = {
    html: ['text/html', 'application/xhtml+xml'],
    txt: ['text/plain'],
    js: ['application/javascript', 'application/x-javascript', 'text/javascript'],
    css: ['text/css'],
    json: ['application/json', 'application/x-json'],
    jsonld: ['application/ld+json'],
    xml: ['text/xml', 'application/xml', 'application/x-xml'],
    rdf: ['application/rdf+xml'],
    atom: ['application/atom+xml'],
    rss: ['application/rss+xml'],
    form: ['application/x-www-form-urlencoded'],
  };
}

const REFERENCE_TYPES: readonly number[] = Object.values(UrlGeneratorInterface);

/**
 * generateUrl's third argument as a reference type. Only the four numbers and a (non-null) options
 * object are accepted: PHP would coerce '2' or true, and Symfony 2's `$absolute = true` means ABSOLUTE_URL
 * where the number 1 means ABSOLUTE_PATH, so guessing could silently give the wrong kind of URL.
 */
function referenceTypeOf(value: unknown): ReferenceType {
  if (typeof value === 'number' && REFERENCE_TYPES.includes(value)) return value as ReferenceType;
  if (typeof value === 'object' && value !== null) {
    return (value as { absolute?: unknown }).absolute ? UrlGeneratorInterface.ABSOLUTE_URL : UrlGeneratorInterface.ABSOLUTE_PATH;
  }
  const given = typeof value === 'string' ? JSON.stringify(value) : typeof value === 'number' || typeof value === 'boolean' || value === null ? String(value) : typeof value;
  throw new TypeError(
    `generateUrl's third argument must be a UrlGeneratorInterface reference type (ABSOLUTE_URL 0, ABSOLUTE_PATH 1, RELATIVE_PATH 2, NETWORK_PATH 3) or { absolute?: boolean }; ${given} given.`,
  );
}

/**
 * The path and query of an absolute-form target, fragment dropped (Symfony keeps parse_url's path and
 * query). The authority ends at the first `/`, `?` or `#` (RFC 3986), so a `/` in the query of
 * `http://h?next=/admin` is not where the path starts; a missing path is `/`.
 */
/**
 * An origin-form target without its fragment, as Request::prepareRequestUri cuts it ("to only use path
 * and query"): browsers send none, but a raw `GET /a#x` was routed as the path `/a#x` on Node (Deno's
 * URL parser drops it).
 */
function withoutFragment(t: string): string {
  const hash = t.indexOf('#');
  return hash < 0 ? t : t.slice(0, hash);
}

function absoluteFormTarget(t: string, authorityStart: number): string {
  let end = authorityStart;
  while (end < t.length && t[end] !== '/' && t[end] !== '?' && t[end] !== '#') end++;
  const hash = t.indexOf('#', end);
  const rest = hash < 0 ? t.slice(end) : t.slice(end, hash);
  return rest[0] === '/' ? rest : '/' + rest;
}

/** A run of 19 digits: the shortest integer literal that may not fit in 64 bits. */
const NINETEEN_DIGITS = /\d{19}/;
/** A JSON number at `lastIndex`: sign, integer digits, fraction, exponent. */
const JSON_NUMBER = /-?(\d+)(\.\d+)?([eE][+-]?\d+)?/y;
/** PHP_INT_MIN's digits (LONG_MIN_DIGITS in ext/json's scanner). */
const LONG_MIN_DIGITS = '9223372036854775808';

/**
 * A valid JSON text with each integer literal that json_decode reads as a big integer (19 digits and
 * above PHP_INT_MAX, or more: ext/json's scanner) written as a string, so that JSON.parse gives what
 * JSON_BIGINT_AS_STRING gives; null when there is none (the text is then only scanned when it has a
 * run of 19 digits, and strings are skipped).
 */
function bigIntsAsStrings(text: string): string | null {
  if (!NINETEEN_DIGITS.test(text)) return null;
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      JSON_NUMBER.lastIndex = i;
      const number = JSON_NUMBER.exec(text)!;
      const digits = number[1]!;
      const end = i + number[0].length;
      if (number[2] === undefined && number[3] === undefined && (digits.length > 19 || (digits.length === 19 && (digits > LONG_MIN_DIGITS || (digits === LONG_MIN_DIGITS && c !== 0x2d))))) {
        out += `${text.slice(copied, i)}"${number[0]}"`;
        copied = end;
      }
      i = end - 1;
    }
  }
  return copied === 0 ? null : out + text.slice(copied);
}

/** Whether a lower-cased media type is one of JSON's (`+json` suffixes too) or HTML's, for prefersJson; null for others. */
function mediaKind(type: string): 'json' | 'html' | null {
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  return type === 'text/html' || type === 'application/xhtml+xml' ? 'html' : null;
}

/** How many entries of an Accept-style header are read (README: the one difference in getLanguages/getAcceptableContentTypes). */
const MAX_ACCEPT_ENTRIES = 32;
/** How much of an Accept-style header is read: a browser's are a few hundred characters. */
const MAX_ACCEPT_LENGTH = 2048;

/**
 * The part of an Accept-style header acceptValues reads: its first MAX_ACCEPT_ENTRIES entries (a comma
 * inside quotes separates none), within MAX_ACCEPT_LENGTH characters. Splitting as HeaderUtils::split
 * does costs a few hundred nanoseconds a character: a 16 KB header of thousands of entries cost
 * milliseconds per request, for entries that are never read. One pass over characters, no allocation.
 */
function leadingEntries(header: string): string {
  const limit = Math.min(header.length, MAX_ACCEPT_LENGTH);
  let quoted = false;
  let commas = 0;
  for (let i = 0; i < limit; i++) {
    const c = header.charCodeAt(i);
    if (c === 0x22) quoted = !quoted;
    else if (c === 0x5c && quoted) i++;
    else if (c === 0x2c && !quoted && ++commas === MAX_ACCEPT_ENTRIES) return header.slice(0, i);
  }
  return limit === header.length ? header : header.slice(0, limit);
}
const PHP_LEADING_NUMBER = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;

/** PHP 8's `(float)` cast of a string: its leading number (`0.5abc` is 0.5), 0 when it has none (`0x1`, `inf`). */
function phpFloat(text: string): number {
  const number = PHP_LEADING_NUMBER.exec(text);
  return number === null ? 0 : Number(number[0]);
}

const MAX_PORT = 65535;

/** A TCP port as sent: digits only, 0–65535 (leading zeros allowed, as `(int)` reads them). */
function isPort(text: string): boolean {
  return isDigits(text) && Number(text) <= MAX_PORT;
}

/** `sent` (lower-cased Host) ended in `:digits` that `host` lost, and those digits are no port. */
function hasInvalidPort(sent: string, host: string): boolean {
  return sent.length !== host.length && !isPort(sent.slice(host.length + 1));
}

function portOf(host: string): string | null {
  const pos = host[0] === '[' ? host.indexOf(':', host.lastIndexOf(']')) : host.lastIndexOf(':');
  if (pos < 0) return null;
  const port = host.slice(pos + 1);
  // Request::getPort tests `$port = substr(…)` for truth: `:0` is PHP-falsy, so the scheme's default port.
  return isPort(port) && port !== '0' ? port : null;
}

function portOrDefault(host: string, secure: boolean): number {
  const port = portOf(host);
  return port !== null ? Number(port) : secure ? 443 : 80;
}

/**
 * Forwarded client addresses as Symfony's normalizeAndFilterClientIps reads them: `:port` cut from an
 * IPv4 address, brackets (and port) from an IPv6 one, and entries that are no IP address dropped.
 */
function clientIps(values: readonly string[]): string[] {
  const out: string[] = [];
  for (let value of values) {
    if (value.indexOf('.') > 0) {
      const colon = value.indexOf(':');
      if (colon > 0) value = value.slice(0, colon);
    } else if (value[0] === '[') {
      // substr($clientIp, 1, $i - 1): without a `]` ($i false, so -1) the last character goes too.
      const close = value.indexOf(']', 1);
      value = value.slice(1, close < 0 ? -1 : close);
    }
    if (isIp(value)) out.push(value);
  }
  return out;
}

/**
 * Values of one parameter in a `Forwarded` header (RFC 7239), one per element that has it, as Symfony's
 * getTrustedValues takes them: HeaderUtils::split(',;=') and ::combine, so quotes and escapes are
 * resolved, a quoted value may hold `,` `;` `=`, and a parameter given twice in one element counts once,
 * with its last value. A parameter without a value is PHP's `true`, which reads as the string '1'.
 */
function parseForwarded(header: string, param: string): string[] {
  const out: string[] = [];
  for (const element of splitHeader(header, ',;=') as string[][][]) {
    const value = combineHeaderParts(element).get(param);
    if (value !== undefined) out.push(value === true ? '1' : value);
  }
  return out;
}

/** PHP's `===` on two lists of strings. */
function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * How deep a name may nest: 32 levels, the name and 31 bracket groups (README, parameters); deeper names
 * are dropped, as PHP drops the names past its max_input_nesting_level (64 bracket groups: irms-web's
 * bound is lower).
 */
const MAX_PARAMETER_DEPTH = 32;

/**
 * PHP's max_input_vars default: a query string, form body, multipart body or Cookie header gives at
 * most this many variables; the rest is dropped with one warning (`inputVarsExceeded`), as PHP drops and warns. It also
 * bounds the work a request's parameters cost. JSON bodies have no such bound, as in Symfony.
 */
export const MAX_INPUT_VARS = 1000;

type ParameterContainer = Record<string, unknown> | unknown[];

/**
 * The index `[]` appends at in an object container, PHP's nNextFreeElement: one past the largest
 * integer key written so far (0 for none). Kept beside the container, not found by scanning its keys,
 * so that `a[x]=1&a[]=1&a[]=1…` is linear (scanning made it quadratic: seconds of blocked event loop
 * for a 60 KB body). An array's is its length.
 */
const nextFreeIndex = new WeakMap<object, number>();

/**
 * Adds one parameter the way PHP's php_register_variable_ex does (`$_GET`, `$_POST`, `$_COOKIE`, with
 * the name rules of `variablePath`): `user[name]=x` nests (`{ user: { name: 'x' } }`), `tags[]=a&tags[]=b`
 * gives `['a', 'b']`, a repeated name keeps its last value, or its first with `firstWins` (cookies: PHP
 * keeps the first cookie of a name, the most specific path's). Containers are arrays while their keys
 * run 0, 1, 2…, null-prototype objects otherwise (`__proto__` is a plain key).
 */
export function addParameter(out: Record<string, unknown>, name: string, value: unknown, firstWins = false): void {
  const path = variablePath(name, false);
  if (!Array.isArray(path)) {
    if (path !== null) delete out[path.tooDeep];
    return;
  }
  if (path.length === 1) {
    const key = path[0]!;
    if (!(firstWins && key in out)) out[key] = value;
    return;
  }
  let parent: ParameterContainer = out;
  let parentKey = path[0]!;
  for (let i = 1; i < path.length; i++) {
    const segment = path[i]!;
    let child = getEntry(parent, parentKey);
    if (!isContainer(child)) {
      child = segment === '' || segment === '0' ? [] : nullRecord();
      setEntry(parent, parentKey, child);
    }
    if (Array.isArray(child) && !(segment === '' || (isPhpIntegerKey(segment) && Number(segment) >= 0 && Number(segment) <= child.length))) {
      // A key that breaks the 0, 1, 2… run: the array becomes an object with the same entries.
      const record = nullRecord();
      for (let j = 0; j < child.length; j++) record[String(j)] = child[j];
      nextFreeIndex.set(record, child.length);
      setEntry(parent, parentKey, record);
      child = record;
    }
    const container = child as ParameterContainer;
    if (i === path.length - 1) {
      setEntry(container, segment, value);
      return;
    }
    parent = container;
    parentKey = segment === '' ? nextIndex(container) : segment;
  }
}

/** A container this parser made (an array or a null-prototype object), not a value such as a File. */
function isContainer(value: unknown): value is ParameterContainer {
  return value !== null && typeof value === 'object' && (Array.isArray(value) || Object.getPrototypeOf(value) === null);
}

function getEntry(container: ParameterContainer, key: string): unknown {
  return Array.isArray(container) ? container[Number(key)] : container[key];
}

/** Sets `key` ('' = the next index), keeping an object's next free index as PHP does. */
function setEntry(container: ParameterContainer, key: string, value: unknown): void {
  const at = key === '' ? nextIndex(container) : key;
  if (Array.isArray(container)) {
    container[Number(at)] = value;
    return;
  }
  container[at] = value;
  if (isPhpIntegerKey(at) && Number(at) >= (nextFreeIndex.get(container) ?? 0)) nextFreeIndex.set(container, Number(at) + 1);
}

/** The index `[]` appends at: after the largest integer key (0 for none), as PHP does. */
function nextIndex(container: ParameterContainer): string {
  return String(Array.isArray(container) ? container.length : (nextFreeIndex.get(container) ?? 0));
}

/**
 * Query string (or form body) to parameters, as PHP fills `$_GET` and `$_POST`: pairs split on `&`,
 * names and values decoded as urldecode does, names read by PHP's rules (`variablePath`). Past
 * MAX_INPUT_VARS pairs the rest is dropped and `exceeded` is called, once. `countEmpty` (form bodies):
 * an empty pair (`a=1&&b=2`) counts against the limit, as PHP's add_post_var counts it for `$_POST`;
 * `$_GET`'s strtok skips it uncounted.
 */
export function parseQuery(qs: string, exceeded?: () => void, countEmpty = false): Record<string, unknown> {
  const out = nullRecord();
  let count = 0;
  for (let start = 0; start < qs.length; ) {
    let end = qs.indexOf('&', start);
    if (end < 0) end = qs.length;
    if (end > start || countEmpty) {
      if (++count > MAX_INPUT_VARS) {
        exceeded?.();
        break;
      }
      const pair = qs.slice(start, end);
      const eq = pair.indexOf('=');
      addParameter(out, safeDecode(eq < 0 ? pair : pair.slice(0, eq)), eq < 0 ? '' : safeDecode(pair.slice(eq + 1)));
    }
    start = end + 1;
  }
  return out;
}

/** The WARNING for a source past MAX_INPUT_VARS (PHP's "Input variables exceeded 1000" warning). */
export function inputVarsExceeded(request: KernelRequest, source: 'query string' | 'form body' | 'multipart body' | 'cookie header'): void {
  request.logger.warning('request', 'Input variables exceeded {limit}: the rest of the {source} was ignored (PHP\'s max_input_vars).', { limit: MAX_INPUT_VARS, source });
}

/**
 * Request cookies, as PHP fills `$_COOKIE`: PHP's name rules (`a.b` is `a_b`, `a[x]` nests), the first
 * cookie of a name kept, and at most MAX_INPUT_VARS of them (php_default_treat_data counts cookies as
 * it counts query pairs: past the limit the rest is dropped and `exceeded` called, once).
 */
function parseCookies(header: string | null, exceeded: () => void): Record<string, unknown> {
  const out = nullRecord();
  if (!header) return out;
  const pairs = parseCookieHeader(header);
  const kept = pairs.length > MAX_INPUT_VARS ? MAX_INPUT_VARS : pairs.length;
  for (let i = 0; i < kept; i++) addParameter(out, pairs[i]![0], pairs[i]![1], true);
  if (pairs.length > MAX_INPUT_VARS) exceeded();
  return out;
}

/** A query parameter as HeaderUtils::parseQuery nests it: a value, or named children in order. */
type QueryNode = string | { children: Map<string, QueryNode>; next: number };

/**
 * Symfony's normalizeQueryString (5.4): HeaderUtils::parseQuery, `ksort`, then http_build_query with
 * RFC 3986 encoding. So a repeated name keeps its last value, `c[]=x&c[]=y` becomes `c[0]=x&c[1]=y`,
 * names sort as PHP's ksort sorts them (numeric names, `10` or `5.5`, by value, others byte-wise:
 * phpKeyCompare), nested names keep their order, and only the first MAX_INPUT_VARS pairs count, as
 * parse_str reads no more.
 *
 * Names and values are handled as PHP handles them, as bytes (`urlDecodeBytes`): a byte that is no
 * UTF-8 (`q=%E9`, a Latin-1 form) comes back as written, where decoding to text turned it into U+FFFD,
 * and getUri is where a login sends the visitor back to (saveTargetPath).
 */
export function normalizeQueryString(qs: string): string {
  if (!qs) return '';
  const top = new Map<string, QueryNode>();
  const counter = { next: 0 };
  let count = 0;
  for (let start = 0; start < qs.length; ) {
    let end = qs.indexOf('&', start);
    if (end < 0) end = qs.length;
    const pair = qs.slice(start, end);
    start = end + 1;
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = urlDecodeBytes(eq < 0 ? pair : pair.slice(0, eq));
    // parseQuery hands parse_str such a pair as an empty one, which php_strtok_r skips uncounted.
    if (eq < 0 && isBlankName(key)) continue;
    // parse_str stops at max_input_vars, as $_GET does; the rest is not part of the normalized query
    // (and a 16 KB query of 8,000 pairs cost 9 ms a getUri).
    if (++count > MAX_INPUT_VARS) break;
    setQueryParameter(top, counter, key, eq < 0 ? '' : urlDecodeBytes(pair.slice(eq + 1)));
  }
  const names = [...top.keys()].map((name) => ({ name, number: phpNumericValue(name) })).sort(phpKeyCompare);
  const out: string[] = [];
  for (const { name } of names) buildQuery(out, rawUrlEncodeBytes(name), top.get(name)!);
  return out.join('&');
}

/** A name HeaderUtils::parseQuery empties: nothing but spaces (`ltrim($k, ' ')`) before a NUL. */
function isBlankName(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0) return true;
    if (c !== 0x20) return false;
  }
  return true;
}

/** What urlDecodeBytes has to change: an escape, a `+`, or a character that is more than one byte. */
const NOT_BYTES_AS_IS = /[%+\u0080-\uffff]/;
const utf8Encoder = new TextEncoder();

/**
 * PHP's urldecode, giving bytes: one character per byte (0–255), so that comparing two names compares
 * their bytes, as ksort does. Text in the target (a hand-built source; HTTP parsers refuse raw
 * non-ASCII there) counts as its UTF-8 bytes.
 */
function urlDecodeBytes(s: string): string {
  if (!NOT_BYTES_AS_IS.test(s)) return s;
  const bytes = utf8Encoder.encode(s);
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const high = b === 0x25 && i + 2 < bytes.length ? hexValue(bytes[i + 1]!) : -1;
    const low = high < 0 ? -1 : hexValue(bytes[i + 2]!);
    if (low >= 0) {
      out += String.fromCharCode((high << 4) | low);
      i += 2;
    } else out += b === 0x2b ? ' ' : String.fromCharCode(b);
  }
  return out;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** RFC 3986's unreserved characters, which rawurlencode leaves as they are. */
const UNRESERVED_ONLY = /^[A-Za-z0-9\-_.~]*$/;

/** PHP's rawurlencode of a byte string from urlDecodeBytes. */
function rawUrlEncodeBytes(s: string): string {
  if (UNRESERVED_ONLY.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += isUnreserved(c) ? s[i] : `%${c < 0x10 ? '0' : ''}${c.toString(16).toUpperCase()}`;
  }
  return out;
}

function isUnreserved(c: number): boolean {
  const letter = c | 0x20;
  return (letter >= 0x61 && letter <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}

/** C's isspace: the one blank PHP skips at the start of a bracket group (`a[ ]` appends like `a[]`). */
const isBlank = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const MANGLED = /[ .]/g;
const MANGLED_AFTER_OPEN = /[ .[]/g;

/**
 * A variable name read as PHP's php_register_variable_ex reads it: the path of keys (`a[b][]` →
 * `['a', 'b', '']`, `''` = the next index), or null when PHP drops the name.
 * - A NUL ends the name; leading spaces are dropped; an empty name is dropped (`=1`, `[x]=1`).
 * - `.` and space become `_` in the base name (`user.id` is `user_id`), unless `keepBase` (Symfony's
 *   HeaderUtils::parseQuery, which normalizeQueryString follows, keeps it). A base name that this
 *   turned into a `__Host-` or `__Secure-` one is dropped (PHP 8: a cookie cannot pass for one).
 * - In a bracket group one leading blank is skipped (`a[ ]` appends, `a[ b]` is the key ` b`); a group
 *   ends at the first `]`, and what follows it unless it opens another group is ignored (`a[b]c` is `a[b]`).
 * - An unclosed `[` after the base name becomes `_`, and so do `.`, space and `[` after it (`a[b.c` is
 *   `a_b_c`, as PHP 8; PHP 7 kept `a_b.c`), the `[` itself staying with `keepBase` (`a[b_c`); after a
 *   complete group the unclosed rest is ignored.
 * Deeper than MAX_PARAMETER_DEPTH: `{ tooDeep: base }`, since PHP then also deletes the variable of that
 * base name (php_register_variable_ex's `zend_symtable_str_del(ht, var, var_len)` when the nesting
 * level is exceeded): `a=1&a[x][x]…` leaves no `a`. Linear in the name's length.
 */
function variablePath(raw: string, keepBase: boolean): string[] | TooDeep | null {
  const nul = raw.indexOf('\0');
  const name = nul < 0 ? raw : raw.slice(0, nul);
  let start = 0;
  while (name.charCodeAt(start) === 0x20) start++;
  const open = name.indexOf('[', start);
  const written = open < 0 ? name.slice(start) : name.slice(start, open);
  const base = keepBase ? written : written.replace(MANGLED, '_');
  if (base === '' || (base !== written && (startsAnew(base, written, '__Host-') || startsAnew(base, written, '__Secure-')))) return null;
  if (open < 0) return [base];
  const path = [base];
  for (let at = open; ; ) {
    const keyStart = at + 1;
    const afterBlank = isBlank(name.charCodeAt(keyStart)) ? keyStart + 1 : keyStart;
    let close: number;
    if (name.charCodeAt(afterBlank) === 0x5d) {
      close = afterBlank;
      path.push('');
    } else {
      close = name.indexOf(']', afterBlank);
      if (close < 0) {
        // HeaderUtils::parseQuery (keepBase) turns that `_` back into the `[` it was: `a[` stays `a[`.
        if (path.length === 1) path[0] = `${base}${keepBase ? '[' : '_'}${name.slice(keyStart).replace(MANGLED_AFTER_OPEN, '_')}`;
        break;
      }
      path.push(name.slice(keyStart, close));
    }
    if (path.length > MAX_PARAMETER_DEPTH) return { tooDeep: base };
    if (name.charCodeAt(close + 1) !== 0x5b) break;
    at = close + 1;
  }
  return path;
}

/** A name nested deeper than MAX_PARAMETER_DEPTH: dropped, and the variable of its base name deleted. */
interface TooDeep {
  readonly tooDeep: string;
}

/** Whether mangling made `mangled` start with `prefix` where the name as written did not. */
function startsAnew(mangled: string, written: string, prefix: string): boolean {
  return mangled.startsWith(prefix) && !written.startsWith(prefix);
}

function setQueryParameter(top: Map<string, QueryNode>, topCounter: { next: number }, key: string, value: string): void {
  const path = variablePath(key, true);
  if (!Array.isArray(path)) {
    if (path !== null) top.delete(path.tooDeep);
    return;
  }
  let children = top;
  let counter = topCounter;
  for (let i = 0; i < path.length; i++) {
    let name = path[i]!;
    if (name === '' && i > 0) name = String(counter.next);
    if (isPhpIntegerKey(name) && Number(name) >= counter.next) counter.next = Number(name) + 1;
    if (i === path.length - 1) {
      children.set(name, value);
      return;
    }
    let node = children.get(name);
    if (node === undefined || typeof node === 'string') {
      node = { children: new Map(), next: 0 };
      children.set(name, node);
    }
    children = node.children;
    counter = node;
  }
}

function buildQuery(out: string[], prefix: string, node: QueryNode): void {
  if (typeof node === 'string') {
    out.push(`${prefix}=${rawUrlEncodeBytes(node)}`);
    return;
  }
  for (const [name, child] of node.children) buildQuery(out, `${prefix}%5B${rawUrlEncodeBytes(name)}%5D`, child);
}

/** A name PHP stores as an integer array key: decimal, no leading zero, no sign but `-`, within 64 bits. */
function isPhpIntegerKey(name: string): boolean {
  return /^(?:0|-?[1-9][0-9]{0,18})$/.test(name) && Number.isSafeInteger(Number(name));
}

/** PHP 8's numeric string (is_numeric_string, no trailing data): blanks around, a sign, decimals, an exponent. */
const PHP_NUMERIC = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t\n\r\v\f]*$/;

/** The value of a name that PHP 8 compares as a number (an integer key, or a numeric string such as `5.5`, `01`, `1e3`); null otherwise. */
function phpNumericValue(name: string): number | null {
  return PHP_NUMERIC.test(name) ? Number(name.trim()) : null;
}

/**
 * ksort's comparison (php_array_key_compare_unstable_i: zendi_smart_strcmp for two string keys,
 * zend_compare for an integer and a string): two numeric names by value, whether integer keys or
 * numeric strings (`5.5` before `10`), any other pair byte-wise, an integer as its decimal text. Equal
 * values keep their order (PHP 8's sort is stable); two infinite ones of a sign compare as text.
 */
function phpKeyCompare(a: { name: string; number: number | null }, b: { name: string; number: number | null }): number {
  const x = a.number;
  const y = b.number;
  if (x !== null && y !== null && !(x === y && !Number.isFinite(x))) return x < y ? -1 : x > y ? 1 : 0;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Throws the 413 for a body whose declared Content-Length is over `limit` (nothing is read). */
export function refuseDeclaredOverLimit(source: RequestSource, limit: number): void {
  if (source.hasNoBody?.() === true) return;
  const declared = source.header('content-length');
  if (declared !== null && isDigits(declared.trim()) && Number(declared) > limit) {
    throw new PayloadTooLargeHttpException(`Request body of ${declared} bytes exceeds the limit of ${limit} bytes.`);
  }
}

async function readBounded(source: RequestSource, limit: number): Promise<Uint8Array> {
  refuseDeclaredOverLimit(source, limit);
  let body: Uint8Array | null;
  try {
    body = source.readBody ? await source.readBody(limit) : await readStreamBounded(source.body(), limit);
  } catch (error) {
    throw unreadableBody(error);
  }
  if (body === null) throw new PayloadTooLargeHttpException(`Request body exceeds the limit of ${limit} bytes.`);
  return body;
}

/**
 * A body the host could not deliver whole: the client closed or reset the connection mid-body (Node's
 * `aborted`, Deno's `BadResource` or `Http` error), or a body stream that failed. The request the
 * client sent is incomplete, so it is a 400 logged at ERROR like any client error, not a 500 logged at
 * CRITICAL. A TypeError (a body already used or locked) is the application's own mistake and stays one;
 * the framework's own errors stay as they are.
 */
function unreadableBody(error: unknown): unknown {
  if (error instanceof TypeError || error instanceof FrameworkError) return error;
  return new BadRequestException('The request body could not be read completely: the connection closed or the body stream failed before its end.', error);
}
