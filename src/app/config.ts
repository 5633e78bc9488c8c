import { HTTP_TOKEN } from '../http/cookies.ts';
import { IpMatcher } from '../http/ip.ts';
import { TRUSTED_HEADER_NAMES, type TrustedHeader } from '../http/request.ts';
// profiler-dsn.ts takes parseByteSize from this file: a cycle, harmless as neither calls the other while loading.
import { parseProfilerDsn } from '../debug/profiler/storage/profiler-dsn.ts';
import { arrayOption, optionError, unknownOptionError } from './option-checks.ts';
import type { LevelName } from '../log/levels.ts';
import { LEVELS } from '../log/levels.ts';
import type { LogFormat } from '../log/format.ts';

/**
 * The application's settings, read once at start from the environment (CONTRACT §2) and overridable
 * through createApp options. Every setting has a safe default; invalid values stop the start with a
 * message naming the variable.
 */
export interface AppConfig {
  env: 'dev' | 'prod' | 'test';
  /** Debug pages, profiler, toolbar, X-Debug-* headers. Only configuration can turn it on. */
  debug: boolean;
  host: string;
  port: number;
  logLevel: LevelName;
  logFormat: LogFormat;
  trustedProxies: string[];
  /**
   * The forwarded headers believed from TRUSTED_PROXIES: all five by default (CONTRACT §2); Symfony 5.4's
   * default is `x-forwarded-for`, `x-forwarded-port`, `x-forwarded-proto`.
   */
  trustedHeaders: TrustedHeader[];
  trustedHosts: string[];
  defaultLocale: string;
  profilerDsn: string;
  /** Largest accepted request body in bytes (413 above). */
  bodyLimit: number;
  /** Secret for signed cookies (remember-me) and bearer tokens. */
  secret: string;
  /** `X-Robots-Tag: noindex` on every response unless set (on by default in every environment). */
  disallowRobotsIndexing: boolean;
  /** Symfony's framework.http_method_override (5.4 default: true). */
  httpMethodOverride: boolean;
  sessionCookieName: string;
  /** Sessions kept in the default memory store, and their idle lifetime. */
  sessionMaxCount: number;
  sessionIdleSeconds: number;
  /** Total size of the default memory store's session data, bytes (2 per UTF-16 code unit); its least recently used sessions go first, guests before members. */
  sessionMaxBytes: number;
  /** Most sessions of one member in the default memory store (its least recently used goes), so one account logging in again and again cannot push other members out. */
  sessionMaxPerMember: number;
  /** Where HTML clients go when a `requiresLogin` route is hit anonymously ('' = answer 401). */
  loginPath: string;
  /** Name and lifetime (seconds) of the signed remember-me cookie. */
  rememberMeCookieName: string;
  rememberMeLifetimeSeconds: number;
  /** Locales the app supports; when set, `_locale` is limited to them and `Accept-Language` picks among them. */
  enabledLocales: string[];
  /**
   * Statuses of uncaught HTTP exceptions that are not logged (Monolog's `excluded_http_codes`):
   * `404,405` outside debug mode, as in Symfony's production recipe; none in debug mode.
   */
  logExcludedHttpCodes: number[];
  /** Node server timeouts (ms) and the shutdown deadline. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  shutdownDeadlineMs: number;
}

export type Env = Record<string, string | undefined>;

/**
 * The process environment. On Deno each variable is read on its own, and one the process may not read
 * (no `--allow-env`, or not in its list) reads as unset: the app starts with its options and defaults
 * instead of failing on the first variable it looks at.
 */
function readEnvironment(): Env {
  const deno = (globalThis as { Deno?: { env?: { get(name: string): string | undefined } } }).Deno;
  const denoEnv = deno?.env;
  if (denoEnv) {
    return new Proxy({} as Env, {
      get(_, name) {
        if (typeof name !== 'string') return undefined;
        try {
          return denoEnv.get(name);
        } catch {
          return undefined;
        }
      },
    });
  }
  return (globalThis as { process?: { env?: Env } }).process?.env ?? {};
}

function bool(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(value.toLowerCase())) return true;
  if (['0', 'false', 'off', 'no'].includes(value.toLowerCase())) return false;
  throw new Error(`${name} must be 0 or 1, got "${value}".`);
}

/**
 * APP_DEBUG. Unset, the environment's default (on in dev and test); set but empty, off, as Symfony 5.4's
 * Dotenv::bootEnv reads it (`(int) '' || filter_var('', FILTER_VALIDATE_BOOLEAN)` is false): a
 * deployment's `APP_DEBUG=` (a template variable left unfilled) must not open the debug pages and profiler.
 */
function debugFlag(value: string | undefined, appEnv: string): boolean {
  return value === '' ? false : bool('APP_DEBUG', value, appEnv !== 'prod');
}

/** Ten years: a cookie's expiry date must stay a date (browsers keep one 400 days at most anyway). */
const TEN_YEARS_SECONDS = 10 * 365 * 24 * 3600;

/** The longest delay a timer takes (2^31 − 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A cookie name from the environment: an HTTP token, or every response that sets the cookie would fail. */
function cookieName(name: string, value: string): string {
  if (!HTTP_TOKEN.test(value)) throw new Error(`${name} must be a cookie name (letters, digits and !#$%&'*+-.^_\`|~), got "${value}".`);
  return value;
}

function int(name: string, value: string | undefined, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new Error(`${name} must be an integer between ${min} and ${max}, got "${value}".`);
  return Number(value);
}

function httpCodes(name: string, value: string): number[] {
  return list(value).map((code) => {
    if (!/^[1-5]\d\d$/.test(code)) throw new Error(`${name} must be a comma-separated list of HTTP status codes, got "${value}".`);
    return Number(code);
  });
}

function list(value: string | undefined): string[] {
  return value ? value.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

/** `1mb`, `512kb`, `1048576` → bytes. */
/** The smallest SESSION_MAX_BYTES: room for a session holding a logged-in member (a few hundred bytes) and more. */
const MIN_SESSION_BYTES = 1024;

function sessionBytes(value: string | undefined): number {
  const bytes = parseByteSize('SESSION_MAX_BYTES', value || '64mb');
  if (bytes < MIN_SESSION_BYTES) throw new Error(`SESSION_MAX_BYTES must be at least ${MIN_SESSION_BYTES} bytes (1kb), got "${value}".`);
  return bytes;
}

export function parseByteSize(name: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (!m) throw new Error(`${name} must be a size such as 1mb, 512kb or 1048576, got "${value}".`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const factor = unit === 'gb' ? 1024 ** 3 : unit === 'mb' ? 1024 ** 2 : unit === 'kb' ? 1024 : 1;
  const bytes = Math.floor(Number(m[1]) * factor);
  // A size past 2^53 − 1 (Infinity for 309 digits) is no exact byte count: it would turn the limit off
  // where the `bodyLimit` option refuses the same number.
  if (!Number.isSafeInteger(bytes)) throw new Error(`${name} must be a size of at most ${Number.MAX_SAFE_INTEGER} bytes, got "${value}".`);
  return bytes;
}

/**
 * The messages below name what the value came from: the variable (`HOST`), or the option
 * (`createApp option "host"`), so that the caller looks in the right place.
 */
const optionLabel = (name: string) => `createApp option "${name}"`;

/** A host name or an IP address to listen on; anything else is a start-up error. */
function listenHost(label: string, value: string): string {
  const name = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
  const ipv6 = /^\[?[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\]?$/;
  if (value.length > 253 || !(name.test(value) || ipv6.test(value))) throw new Error(`${label} must be a host name or an IP address, got "${value}".`);
  return value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
}

/** Trusted host patterns, each checked to compile (case-insensitive) before the server starts. */
function hostPatterns(what: string, patterns: string[]): string[] {
  for (const pattern of patterns) {
    try {
      new RegExp(pattern, 'i');
    } catch (error) {
      throw new Error(`${what}; "${pattern}" is not one (${(error as Error).message}).`);
    }
  }
  return patterns;
}

/** Trusted proxies, each an IP address or CIDR range (or REMOTE_ADDR), checked as IpMatcher reads them. */
function proxies(what: string, entries: string[]): string[] {
  for (const entry of entries) {
    try {
      new IpMatcher([entry]);
    } catch {
      throw new Error(`${what}; "${entry}" is not one.`);
    }
  }
  return entries;
}

/**
 * PROFILER_DSN, parsed now though only debug mode uses it, as the `profilerDsn` option is: a wrong DSN
 * is found in prod too, at start, not on the day debug mode is turned on to look into a problem.
 */
function profilerDsn(value: string): string {
  parseProfilerDsn(value);
  return value;
}

const TRUSTED_HEADERS_WANTED = `names among ${TRUSTED_HEADER_NAMES.join(', ')}`;
const isTrustedHeader = (value: unknown): value is TrustedHeader => (TRUSTED_HEADER_NAMES as readonly unknown[]).includes(value);

/** TRUSTED_HEADERS: header names, any case (header names are case-insensitive); unset or empty: all of them. */
function trustedHeaders(value: string | undefined): TrustedHeader[] {
  if (!value) return [...TRUSTED_HEADER_NAMES];
  return list(value).map((entry) => {
    const header = entry.toLowerCase();
    if (!isTrustedHeader(header)) throw new Error(`TRUSTED_HEADERS must be comma-separated ${TRUSTED_HEADERS_WANTED}, got "${value}".`);
    return header;
  });
}

type OptionCheck = (name: string, value: unknown) => unknown;

const flag: OptionCheck = (name, value) => {
  // Not "truthy": a string 'false' from a config file must not turn debug mode on.
  if (typeof value !== 'boolean') throw optionError(name, 'true or false', value);
  return value;
};
const integer = (min: number, max = Number.MAX_SAFE_INTEGER): OptionCheck => (name, value) => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw optionError(name, `an integer between ${min} and ${max}`, value);
  return value;
};
const text: OptionCheck = (name, value) => {
  if (typeof value !== 'string') throw optionError(name, 'a string', value);
  return value;
};
const texts: OptionCheck = (name, value) => arrayOption(name, 'an array of strings', value, (v) => typeof v === 'string');
const oneOf = (...allowed: string[]): OptionCheck => (name, value) => {
  if (typeof value !== 'string' || !allowed.includes(value)) throw optionError(name, `one of ${allowed.join(', ')}`, value);
  return value;
};

/**
 * createApp options checked as strictly as their environment variables: a JavaScript caller (or a
 * spread configuration object) can pass anything, and `debug: 'false'` must not turn debug mode on, nor
 * `bodyLimit: '1mb'` remove the body limit.
 */
const OPTION_CHECKS: { readonly [K in keyof AppConfig]-?: OptionCheck } = {
  env: oneOf('dev', 'prod', 'test'),
  debug: flag,
  host: (name, value) => listenHost(optionLabel(name), text(name, value) as string),
  port: integer(0, 65535),
  logLevel: oneOf(...Object.keys(LEVELS)),
  logFormat: oneOf('line', 'json'),
  trustedProxies: (name, value) => proxies(`${optionLabel(name)} must be an array of IP addresses or CIDR ranges (or "REMOTE_ADDR")`, texts(name, value) as string[]),
  // Lower-case names, as Symfony's framework.trusted_headers; an empty array trusts no forwarded header.
  trustedHeaders: (name, value) => arrayOption(name, `an array of ${TRUSTED_HEADERS_WANTED}`, value, isTrustedHeader),
  trustedHosts: (name, value) => hostPatterns(`${optionLabel(name)} must be an array of regular expressions`, texts(name, value) as string[]),
  defaultLocale: text,
  // Parsed now, though only debug mode uses it: a wrong DSN is found in prod too, before debug is turned on.
  profilerDsn: (name, value) => {
    const dsn = text(name, value) as string;
    try {
      parseProfilerDsn(dsn);
    } catch (error) {
      throw new Error((error as Error).message.replace(/^PROFILER_DSN/, optionLabel(name)));
    }
    return dsn;
  },
  bodyLimit: integer(0),
  secret: text,
  disallowRobotsIndexing: flag,
  httpMethodOverride: flag,
  sessionCookieName: (name, value) => cookieName(name, text(name, value) as string),
  sessionMaxCount: integer(1),
  sessionIdleSeconds: integer(1),
  sessionMaxBytes: integer(MIN_SESSION_BYTES),
  sessionMaxPerMember: integer(1),
  loginPath: text,
  rememberMeCookieName: (name, value) => cookieName(name, text(name, value) as string),
  rememberMeLifetimeSeconds: integer(1, TEN_YEARS_SECONDS),
  enabledLocales: texts,
  logExcludedHttpCodes: (name, value) => arrayOption(name, 'an array of HTTP status codes (integers between 100 and 599)', value, (v) => Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 599),
  headersTimeoutMs: integer(1, MAX_TIMER_MS),
  requestTimeoutMs: integer(1, MAX_TIMER_MS),
  keepAliveTimeoutMs: integer(1, MAX_TIMER_MS),
  shutdownDeadlineMs: integer(0, MAX_TIMER_MS),
};

/** The options given (an `undefined` value counts as not given), each checked; an unknown name is refused with the nearest known one. */
function checkedOptions(overrides: Record<string, unknown>): Partial<AppConfig> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(overrides)) {
    const value = overrides[name];
    if (value === undefined) continue;
    if (!Object.hasOwn(OPTION_CHECKS, name)) throw unknownOptionError(name, Object.keys(OPTION_CHECKS));
    out[name] = OPTION_CHECKS[name as keyof AppConfig](name, value);
  }
  return out as Partial<AppConfig>;
}

export function loadConfig(options: Partial<AppConfig> = {}, env: Env = readEnvironment()): AppConfig {
  const overrides = checkedOptions(options as Record<string, unknown>);
  const appEnv = overrides.env ?? (env.APP_ENV || 'dev');
  if (appEnv !== 'dev' && appEnv !== 'prod' && appEnv !== 'test') throw new Error(`APP_ENV must be dev, prod or test, got "${appEnv}".`);
  const debug = overrides.debug ?? debugFlag(env.APP_DEBUG, appEnv);
  const logLevel = (overrides.logLevel ?? (env.LOG_LEVEL || (debug ? 'debug' : 'warning')).toLowerCase()) as LevelName;
  // Own keys only: `constructor` or `__proto__` would be "in" the table and turn every record off.
  if (!Object.hasOwn(LEVELS, logLevel)) throw new Error(`LOG_LEVEL must be one of ${Object.keys(LEVELS).join(', ')}, got "${logLevel}".`);
  const logFormat = overrides.logFormat ?? (env.LOG_FORMAT || 'line').toLowerCase();
  if (logFormat !== 'line' && logFormat !== 'json') throw new Error(`LOG_FORMAT must be line or json, got "${logFormat}".`);
  const config: AppConfig = {
    env: appEnv,
    debug,
    host: listenHost('HOST', env.HOST || '127.0.0.1'),
    port: int('PORT', env.PORT, 8000, 0, 65535),
    logLevel,
    logFormat,
    trustedProxies: proxies('TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (or REMOTE_ADDR)', list(env.TRUSTED_PROXIES)),
    trustedHeaders: trustedHeaders(env.TRUSTED_HEADERS),
    trustedHosts: hostPatterns('TRUSTED_HOSTS must be comma-separated regular expressions', list(env.TRUSTED_HOSTS)),
    defaultLocale: env.DEFAULT_LOCALE || 'en',
    profilerDsn: profilerDsn(env.PROFILER_DSN || 'memory://?max=1000'),
    bodyLimit: parseByteSize('BODY_LIMIT', env.BODY_LIMIT || '1mb'),
    secret: env.APP_SECRET || '',
    disallowRobotsIndexing: bool('DISALLOW_ROBOTS_INDEXING', env.DISALLOW_ROBOTS_INDEXING, true),
    httpMethodOverride: bool('HTTP_METHOD_OVERRIDE', env.HTTP_METHOD_OVERRIDE, true),
    sessionCookieName: cookieName('SESSION_COOKIE_NAME', env.SESSION_COOKIE_NAME || 'IRMSSESSID'),
    sessionMaxCount: int('SESSION_MAX_COUNT', env.SESSION_MAX_COUNT, 10000, 1),
    sessionIdleSeconds: int('SESSION_IDLE_SECONDS', env.SESSION_IDLE_SECONDS, 1800, 1),
    sessionMaxBytes: sessionBytes(env.SESSION_MAX_BYTES),
    sessionMaxPerMember: int('SESSION_MAX_PER_MEMBER', env.SESSION_MAX_PER_MEMBER, 32, 1),
    loginPath: env.LOGIN_PATH || '',
    logExcludedHttpCodes: httpCodes('LOG_EXCLUDED_HTTP_CODES', env.LOG_EXCLUDED_HTTP_CODES ?? (debug ? '' : '404,405')),
    rememberMeCookieName: cookieName('REMEMBER_ME_COOKIE_NAME', env.REMEMBER_ME_COOKIE_NAME || 'REMEMBERME'),
    rememberMeLifetimeSeconds: int('REMEMBER_ME_LIFETIME', env.REMEMBER_ME_LIFETIME, 30 * 24 * 3600, 1, TEN_YEARS_SECONDS),
    enabledLocales: list(env.ENABLED_LOCALES),
    headersTimeoutMs: int('HEADERS_TIMEOUT_MS', env.HEADERS_TIMEOUT_MS, 10000, 1, MAX_TIMER_MS),
    requestTimeoutMs: int('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, 30000, 1, MAX_TIMER_MS),
    keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS', env.KEEP_ALIVE_TIMEOUT_MS, 5000, 1, MAX_TIMER_MS),
    shutdownDeadlineMs: int('SHUTDOWN_DEADLINE_MS', env.SHUTDOWN_DEADLINE_MS, 10000, 0, MAX_TIMER_MS),
    ...overrides,
  };
  if (!config.secret) {
    // Without APP_SECRET a per-process random secret keeps signatures unforgeable (they reset on restart).
    config.secret = randomSecret();
  }
  return config;
}

function randomSecret(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
