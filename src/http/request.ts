import {
  BadRequestException,
  ConflictingHeadersException,
  FrameworkError,
  PayloadTooLargeHttpException,
  SessionNotFoundException,
  SuspiciousOperationException,
} from '../kernel/exceptions.ts';
import { parseCookieHeader } from './cookies.ts';
import { now } from '../kernel/clock.ts';
import { headerText, rawUrlEncode, safeDecode } from './url-encode.ts';
import type { Listener, ListenerCall } from '../kernel/hooks.ts';
import { Logger, type LogStream } from '../log/logger.ts';
import { LEVELS, type LevelName } from '../log/levels.ts';
import type { LogRecord } from '../log/record.ts';
import { isIp, type IpMatcher } from './ip.ts';
import { HeaderBag, ParameterBag } from './parameter-bag.ts';
import type { Session } from './session.ts';
import { isDigits, readStreamBounded, type RequestSource } from './source.ts';

/** Per-app settings the request model needs; built once by the app (see app/config.ts). */
export interface RequestSettings {
  trustedProxies: IpMatcher;
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
  generateUrl?: (name: string, params: Record<string, unknown>, options: { absoluteBase?: string; context?: Readonly<Record<string, unknown>> }) => string;
}

const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'PATCH', 'PURGE', 'TRACE']);
// Symfony's host pattern, rewritten without nested quantifiers (the original backtracks exponentially in JS).
const VALID_HOST = /^\[?[a-zA-Z0-9\-:\]_]+(?:\.[a-zA-Z0-9\-:\]_]+)*\.?$/;
const PORT_SUFFIX = /:\d+$/;
const ASCII_UPPER = /[A-Z]+/g;
/**
 * Host header as sent → its validated, lower-cased host without port. A pure function of the header,
 * so it is remembered: a service sees a handful of distinct hosts, and the two regular expressions
 * would otherwise run on every request. Bounded in count and length (a DNS name has at most 253
 * characters, plus a port): other hosts are checked each time.
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
  private _logger: Logger | undefined;
  private _collected: Record<string, unknown> | undefined;

  private _request: ParameterBag | undefined;
  private _query: ParameterBag | undefined;
  private _cookies: ParameterBag<string> | undefined;
  private _cookieHeader: string | null | undefined;
  private _headers: HeaderBag | undefined;
  private _method: string | undefined;
  private _pathInfo: string | undefined;
  private _host: string | undefined;
  private hostValid = true;
  private _requestId: string | undefined;
  private _content: Promise<Uint8Array> | undefined;
  private _locale: string | undefined;
  private sessionFactory: ((request: KernelRequest) => Session) | null = null;
  private _session: Session | null = null;
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
    return (this._query ??= new ParameterBag(parseQuery(this.queryString)));
  }

  get cookies(): ParameterBag<string> {
    return (this._cookies ??= new ParameterBag<string>(parseCookieHeader(this.cookieHeader)));
  }

  /** The raw Cookie header, read from the host once (several listeners ask before parsing it). */
  get cookieHeader(): string | null {
    return this._cookieHeader === undefined ? (this._cookieHeader = this.source.header('cookie')) : this._cookieHeader;
  }

  get headers(): HeaderBag {
    return (this._headers ??= new HeaderBag(this.source));
  }

  /** A short id for log lines and the profile; unique within the process. */
  get requestId(): string {
    return (this._requestId ??= `${requestIdPrefix}-${(++requestCounter).toString(36)}`);
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
    if (!override && this.settings.httpMethodOverride) override = this.request.get('_method') ?? this.query.get('_method');
    if (typeof override !== 'string' || override === '') return real;
    const upper = override.toUpperCase();
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
    if (t[0] === '/' || t === '*') return t;
    const scheme = t.indexOf('://');
    return scheme < 0 ? '/' + t : absoluteFormTarget(t, scheme + 3);
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
   * are present and disagree, that is a ConflictingHeadersException (Symfony's wording).
   */
  forwardedValues(field: 'for' | 'host' | 'proto' | 'port'): readonly string[] {
    if (!this.isFromTrustedProxy) return NOTHING_FORWARDED;
    const xName = `x-forwarded-${field}`;
    const x = this.headers.get(xName);
    let xValues = x ? x.split(',').map((v) => v.trim()).filter(Boolean) : [];
    const fwd = this.headers.get('forwarded');
    const fValues = fwd ? parseForwarded(fwd, field === 'port' ? 'host' : field) : [];
    const fromForwarded = field === 'port' ? fValues.map(portOf).filter((p): p is string => p !== null) : field === 'for' ? clientIps(fValues) : fValues;
    // Symfony's normalizeAndFilterClientIps, on both lists before they are compared: ports and brackets
    // stripped, what is no IP address (`unknown`, an obfuscated identifier) dropped.
    if (field === 'for') xValues = clientIps(xValues);
    if (xValues.length && fromForwarded.length && xValues.join(',') !== fromForwarded.join(',')) {
      throw new ConflictingHeadersException(
        `The request has both a trusted "FORWARDED" header and a trusted "${xName.toUpperCase().replace(/-/g, '_')}" header, conflicting with each other. You should either configure your proxy to remove one of them, or configure your project to distrust the offending one.`,
      );
    }
    return fromForwarded.length ? fromForwarded : xValues;
  }

  /** The Host as sent (forwarded host from a trusted proxy first), before validation. */
  private rawHost(): string {
    const forwarded = this.forwardedValues('host');
    if (forwarded.length) return forwarded[0];
    return this.hostHeader();
  }

  /**
   * The `Host` header, or — missing or empty, as Symfony falls back to SERVER_NAME/SERVER_ADDR and
   * SERVER_PORT — the host's own authority for this connection (`source.fallbackHost`).
   */
  private hostHeader(): string {
    const header = this.source.header('host');
    return header ? header : this.source.fallbackHost;
  }

  /**
   * Lower-cased host without port. An invalid or untrusted host throws once; afterwards this request
   * answers '' so that the error page can still be built (Symfony's isHostValid flag).
   */
  getHost(): string {
    if (this._host !== undefined) return this._host;
    if (!this.hostValid) return '';
    const raw = this.rawHost();
    let host = validHosts.get(raw);
    if (host === undefined) {
      // ASCII lower-casing, as PHP 8's strtolower: other bytes stay as sent (and are shown decoded).
      const sent = raw.trim().replace(ASCII_UPPER, (c) => c.toLowerCase());
      host = sent.replace(PORT_SUFFIX, '');
      // A port beyond 65535 is no port (it would print as `1e+23`): the Host is shown with it, since it is what is wrong.
      const invalid = host && !VALID_HOST.test(host) ? host : hasInvalidPort(sent, host) ? sent : null;
      if (invalid !== null) {
        this.hostValid = false;
        throw new SuspiciousOperationException(`Invalid Host "${headerText(invalid)}".`);
      }
      if (validHosts.size < VALID_HOSTS_KEPT && raw.length <= HOST_LENGTH_KEPT) validHosts.set(raw, host);
    }
    const trusted = this.settings.trustedHosts;
    if (trusted.length && !trusted.some((re) => re.test(host))) {
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
   * locale); `absolute` prefixes this request's scheme and host, as UrlGeneratorInterface::ABSOLUTE_URL
   * does with the request context. Unknown route → Error.
   */
  generateUrl(name: string, params: Record<string, unknown> = {}, options: { absolute?: boolean } = {}): string {
    const generate = this.settings.generateUrl;
    if (!generate) throw new Error('generateUrl needs a request made by an app (createApp).');
    // The request's locale fills a `_locale` variable the caller left out (Symfony's router context).
    const context = { _locale: this.locale };
    return generate(name, params, options.absolute ? { absoluteBase: this.getSchemeAndHttpHost(), context } : { context });
  }

  /** Absolute URL with the normalised query string (keys sorted), as in the `Matched route` log. */
  getUri(): string {
    const qs = normalizeQueryString(this.queryString);
    return this.getUriForPath(this.pathInfo) + (qs ? `?${qs}` : '');
  }

  /** Client addresses, nearest last; forwarded addresses only from trusted proxies. */
  getClientIps(): string[] {
    const peer = this.source.remoteAddress;
    if (!this.isFromTrustedProxy) return [peer];
    const chain = [...this.forwardedValues('for'), peer];
    const out: string[] = [];
    for (let i = chain.length - 1; i >= 0; i--) {
      const ip = chain[i];
      if (i === chain.length - 1 || this.settings.trustedProxies.matches(ip)) {
        if (i === 0) out.unshift(ip);
        continue;
      }
      out.unshift(ip);
      break;
    }
    return out.length ? out : [peer];
  }

  getClientIp(): string {
    return this.getClientIps()[0] ?? '';
  }

  isXmlHttpRequest(): boolean {
    return this.headers.get('x-requested-with') === 'XMLHttpRequest';
  }

  /** The part of Content-Type before `;`, trimmed, lower-case ('' when absent). */
  get contentType(): string {
    const ct = this.source.header('content-type');
    if (!ct) return '';
    const semi = ct.indexOf(';');
    return (semi < 0 ? ct : ct.slice(0, semi)).trim();
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
  /** Whether a session was created for this request (without creating one). */
  get sessionIfCreated(): Session | null {
    return this._session;
  }
  getSession(): Session {
    if (this._session) return this._session;
    if (!this.sessionFactory) throw new SessionNotFoundException('Session has not been set.');
    return (this._session = this.sessionFactory(this));
  }

  /** The `Accept` preference: true when JSON is preferred over HTML. */
  prefersJson(): boolean {
    const accept = this.source.header('accept');
    // JSON can only win when a JSON type is listed (browsers, curl and `*/*` do not list one).
    if (!accept || accept.indexOf('json') < 0) return false;
    let best = '';
    let bestQ = -1;
    for (const part of accept.split(',')) {
      const [type, ...params] = part.trim().toLowerCase().split(';');
      let q = 1;
      for (const p of params) {
        const [k, v] = p.trim().split('=');
        if (k === 'q') q = Number(v) || 0;
      }
      const kind = type === 'application/json' || type === 'application/problem+json' || type.endsWith('+json') ? 'json' : type === 'text/html' || type === 'application/xhtml+xml' ? 'html' : '';
      if (kind && q > bestQ) {
        best = kind;
        bestQ = q;
      }
    }
    return best === 'json';
  }
}

/**
 * The path and query of an absolute-form target, fragment dropped (Symfony keeps parse_url's path and
 * query). The authority ends at the first `/`, `?` or `#` (RFC 3986), so a `/` in the query of
 * `http://h?next=/admin` is not where the path starts; a missing path is `/`.
 */
function absoluteFormTarget(t: string, authorityStart: number): string {
  let end = authorityStart;
  while (end < t.length && t[end] !== '/' && t[end] !== '?' && t[end] !== '#') end++;
  const hash = t.indexOf('#', end);
  const rest = hash < 0 ? t.slice(end) : t.slice(end, hash);
  return rest[0] === '/' ? rest : '/' + rest;
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
  return isPort(port) ? port : null;
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
      const close = value.indexOf(']', 1);
      value = value.slice(1, close < 0 ? undefined : close);
    }
    if (isIp(value)) out.push(value);
  }
  return out;
}

/** Values of one parameter in a `Forwarded` header (RFC 7239), in order. */
function parseForwarded(header: string, param: string): string[] {
  const out: string[] = [];
  for (const element of header.split(',')) {
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      if (pair.slice(0, eq).trim().toLowerCase() !== param) continue;
      let v = pair.slice(eq + 1).trim();
      if (v.length >= 2 && v[0] === '"' && v[v.length - 1] === '"') v = v.slice(1, -1);
      out.push(v);
    }
  }
  return out;
}

/** PHP's max_input_nesting_level is 64; deeper names are dropped, as PHP drops them. */
const MAX_PARAMETER_DEPTH = 32;

type ParameterContainer = Record<string, unknown> | unknown[];

/**
 * Adds one parameter the way PHP's parse_str does: `user[name]=x` nests (`{ user: { name: 'x' } }`),
 * `tags[]=a&tags[]=b` gives `['a', 'b']`, a repeated name keeps its last value. Containers are arrays
 * while their keys run 0, 1, 2…, null-prototype objects otherwise (`__proto__` is a plain key).
 */
export function addParameter(out: Record<string, unknown>, key: string, value: unknown): void {
  const path = queryPath(key);
  if (path.length === 1) {
    out[key] = value;
    return;
  }
  if (path.length > MAX_PARAMETER_DEPTH) return;
  let parent: ParameterContainer = out;
  let parentKey = path[0]!;
  for (let i = 1; i < path.length; i++) {
    const segment = path[i]!;
    let child = getEntry(parent, parentKey);
    if (!isContainer(child)) {
      child = segment === '' || segment === '0' ? [] : (Object.create(null) as Record<string, unknown>);
      setEntry(parent, parentKey, child);
    }
    if (Array.isArray(child) && !(segment === '' || (isPhpIntegerKey(segment) && Number(segment) >= 0 && Number(segment) <= child.length))) {
      // A key that breaks the 0, 1, 2… run: the array becomes an object with the same entries.
      const record: Record<string, unknown> = Object.create(null);
      for (let j = 0; j < child.length; j++) record[String(j)] = child[j];
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

/** Sets `key` ('' = the next index) and returns the key used. */
function setEntry(container: ParameterContainer, key: string, value: unknown): string {
  const at = key === '' ? nextIndex(container) : key;
  if (Array.isArray(container)) container[Number(at)] = value;
  else container[at] = value;
  return at;
}

/** The index `[]` appends at: after the largest integer key (0 for none), as PHP does. */
function nextIndex(container: ParameterContainer): string {
  if (Array.isArray(container)) return String(container.length);
  let next = 0;
  for (const k of Object.keys(container)) if (isPhpIntegerKey(k) && Number(k) >= next) next = Number(k) + 1;
  return String(next);
}

/** Query string to parameters; `a[]=1&a[]=2` gives an array, like PHP; later keys win. */
export function parseQuery(qs: string): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  if (!qs) return out;
  for (const pair of qs.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
    addParameter(out, key, eq < 0 ? '' : safeDecode(pair.slice(eq + 1)));
  }
  return out;
}

/** A query parameter as HeaderUtils::parseQuery nests it: a value, or named children in order. */
type QueryNode = string | { children: Map<string, QueryNode>; next: number };

/**
 * Symfony's normalizeQueryString (5.4): HeaderUtils::parseQuery, `ksort`, then http_build_query with
 * RFC 3986 encoding. So a repeated name keeps its last value, `c[]=x&c[]=y` becomes `c[0]=x&c[1]=y`,
 * names sort as PHP's ksort sorts them (integer names numerically, before and among the others by
 * PHP 8's comparison), and nested names keep their order.
 */
export function normalizeQueryString(qs: string): string {
  if (!qs) return '';
  const top = new Map<string, QueryNode>();
  const counter = { next: 0 };
  for (const pair of qs.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
    if (!key) continue;
    setQueryParameter(top, counter, key, eq < 0 ? '' : safeDecode(pair.slice(eq + 1)));
  }
  const names = [...top.keys()].sort(phpKeyCompare);
  const out: string[] = [];
  for (const name of names) buildQuery(out, rawUrlEncode(name), top.get(name)!);
  return out.join('&');
}

/** `name`, `name[a]`, `name[]`, `name[a][]`…: the path of names (`''` = the next index), or the name alone. */
function queryPath(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0 || !key.endsWith(']')) return [key];
  const path = [key.slice(0, open)];
  const rest = key.slice(open);
  const segment = /\[([^\]]*)\]/y;
  let at = 0;
  while (at < rest.length) {
    segment.lastIndex = at;
    const m = segment.exec(rest);
    if (m === null) return [key];
    path.push(m[1]!);
    at = segment.lastIndex;
  }
  return path;
}

function setQueryParameter(top: Map<string, QueryNode>, topCounter: { next: number }, key: string, value: string): void {
  const path = queryPath(key);
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
    out.push(`${prefix}=${rawUrlEncode(node)}`);
    return;
  }
  for (const [name, child] of node.children) buildQuery(out, `${prefix}%5B${rawUrlEncode(name)}%5D`, child);
}

/** A name PHP stores as an integer array key: decimal, no leading zero, no sign but `-`, within 64 bits. */
function isPhpIntegerKey(name: string): boolean {
  return /^(?:0|-?[1-9][0-9]{0,18})$/.test(name) && Number.isSafeInteger(Number(name));
}

/** PHP 8's `<=>` on array keys (ksort): integers numerically, an integer against a string as strings, strings byte-wise. */
function phpKeyCompare(a: string, b: string): number {
  if (isPhpIntegerKey(a) && isPhpIntegerKey(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
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
