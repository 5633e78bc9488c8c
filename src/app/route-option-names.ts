import { ANNOTATION_ATTRIBUTES } from '../listeners/controller-listener.ts';
import { UNSUPPORTED_ROUTE_KEYS, unsupportedRouteKey, type RouteDefinition } from '../routing/route.ts';
import { httpDate } from '../listeners/cache-control.ts';
import { editDistance } from './near-names.ts';

/** The route options the built-in listeners read: LoginListener's, and the ones ControllerListener turns into attributes. */
const KNOWN_OPTIONS: readonly string[] = ['requiresLogin', ...Object.keys(ANNOTATION_ATTRIBUTES)];

/**
 * Refuses a route option that is a near miss of a known one (`requireLogin`, `isgranted`, `converter`):
 * ignored, it would leave a route open or uncached without a word. Other unknown keys are the
 * application's own options, for its listeners (`_route_options`), and stay allowed.
 */
export function assertOptionNames(route: RouteDefinition): void {
  const options = route.options;
  if (!options || typeof options !== 'object') return;
  for (const key of Object.keys(options)) {
    if (KNOWN_OPTIONS.includes(key)) continue;
    if (UNSUPPORTED_ROUTE_KEYS.has(key)) throw new Error(unsupportedRouteKey(route.name, key));
    const meant = KNOWN_OPTIONS.find((known) => nearMiss(key, known));
    if (meant !== undefined) throw new Error(`Unknown option "${key}" in route "${route.name}": did you mean "${meant}"?`);
  }
  // Sensio's `expires` takes strtotime() phrases ("+1 day", "tomorrow"); here such a value would be dropped
  // without a word, so it is refused where the route is defined.
  const expires = (options as { cache?: { expires?: unknown } }).cache?.expires;
  if (expires !== undefined && httpDate(expires) === null) {
    throw new Error(`The cache option "expires" of route "${route.name}" is no date: ${JSON.stringify(expires)}. Give a Date, a timestamp or a date string; for a relative expiry use maxAge (seconds).`);
  }
  assertCacheDurations(route.name, (options as { cache?: unknown }).cache);
  assertConverters(route.name, (options as { converters?: unknown }).converters);
  for (const name of ['security', 'isGranted'] as const) assertStatusCode(route.name, name, (options as Record<string, unknown>)[name]);
  assertIsGrantedAttributes(route.name, (options as { isGranted?: unknown }).isGranted);
}

/**
 * The `isGranted` option's attributes: a non-empty string or a non-empty list of them, alone or as the
 * `attributes` of `{ attributes, message?, statusCode? }`. Another value (`{}`, `5`, `['ROLE_X', 7]`) was
 * read only when a member came, and failed there: a 500 for every logged-in member (anonymous
 * clients got their 401). `accessControl` roles are refused when the app is built likewise.
 */
function assertIsGrantedAttributes(routeName: string, option: unknown): void {
  if (option === undefined || option === null) return;
  const subject = typeof option === 'object' && !Array.isArray(option) ? (option as { subject?: unknown }).subject : undefined;
  if (subject !== undefined && (typeof subject !== 'string' || subject === '')) {
    throw new Error(`The "isGranted" option of route "${routeName}" names its subject by a route parameter or request attribute ('post'); got ${shownOption(subject)}.`);
  }
  const attributes = typeof option === 'object' && !Array.isArray(option) ? (option as { attributes?: unknown }).attributes : option;
  const list = Array.isArray(attributes) ? attributes : [attributes];
  if (list.length > 0 && list.every((a) => typeof a === 'string' && a !== '')) return;
  throw new Error(`The "isGranted" option of route "${routeName}" must name a role or attribute ('ROLE_ADMIN'), a list of them, or { attributes, subject?, message?, statusCode? }; got ${shownOption(attributes)}.`);
}

function shownOption(value: unknown): string {
  try {
    return value === undefined ? 'no attributes' : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The `statusCode` of a `security` or `isGranted` option: none (absent, null or 0, as Sensio's
 * `if ($statusCode = …)` reads it) or an HTTP status. Another value (`99`, `'forbidden'`, `403.5`) made
 * every refused request a 500 without a word of why, in debug mode too.
 */
function assertStatusCode(routeName: string, optionName: string, option: unknown): void {
  if (option === null || typeof option !== 'object' || Array.isArray(option)) return;
  const statusCode = (option as { statusCode?: unknown }).statusCode;
  if (statusCode === undefined || statusCode === null || statusCode === 0) return;
  const status = typeof statusCode === 'string' && /^\d+$/.test(statusCode) ? Number(statusCode) : statusCode;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599) return;
  throw new Error(`The "${optionName}" option of route "${routeName}" has statusCode ${typeof statusCode === 'string' ? JSON.stringify(statusCode) : String(statusCode)}: give an HTTP status (100-599), or none for Symfony's 401/403.`);
}

/** The `cache` option's durations, in seconds. */
const CACHE_DURATIONS = ['maxAge', 'sMaxAge', 'maxStale', 'staleWhileRevalidate', 'staleIfError'] as const;

/**
 * Sensio's convertToSecondsIfNeeded reads a phrase (`maxage="1 day"`) with strtotime(); here a value
 * that is no number of seconds (`'1 day'`, NaN, `true`) was dropped without a word, so the page went
 * out `no-cache` where a cache lifetime was asked for. Refused where the route is defined, as `expires`.
 */
function assertCacheDurations(routeName: string, cache: unknown): void {
  if (cache === null || typeof cache !== 'object') return;
  for (const name of CACHE_DURATIONS) {
    const value = (cache as Record<string, unknown>)[name];
    if (value === undefined || isSeconds(value)) continue;
    throw new Error(`The cache option "${name}" of route "${routeName}" is no number of seconds: ${typeof value === 'string' ? JSON.stringify(value) : String(value)}. Give seconds (86400 for "1 day").`);
  }
}

/** A finite number, or a string of one (PHP's is_numeric, which Sensio passes on as it is). */
function isSeconds(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(value) && Number.isFinite(Number(value));
}

/** The converters ParamConverterListener knows by name; any function is a converter too. */
const CONVERTER_NAMES: readonly unknown[] = ['int', 'float', 'date', 'bool'];

/**
 * The `converters` option, checked when the app is built: an unknown converter (`'integer'`) made
 * every request to the route a 500, and converters that are not an object were ignored.
 */
function assertConverters(routeName: string, converters: unknown): void {
  if (converters === undefined || converters === null) return;
  if (typeof converters !== 'object' || Array.isArray(converters)) {
    throw new Error(`The "converters" option of route "${routeName}" must be an object (parameter name → converter), got ${JSON.stringify(converters)}.`);
  }
  for (const [parameter, spec] of Object.entries(converters)) {
    const converter: unknown = typeof spec === 'object' && spec !== null ? (spec as { converter?: unknown }).converter : spec;
    if (typeof converter !== 'function' && !CONVERTER_NAMES.includes(converter)) {
      throw new Error(`Unknown converter ${JSON.stringify(converter) ?? String(converter)} for parameter "${parameter}" of route "${routeName}" (use int, float, date, bool, a function, or { converter, optional }).`);
    }
  }
}

/** Same letters ignoring case, or at most two edits apart (insertions, deletions, substitutions). */
function nearMiss(key: string, known: string): boolean {
  const a = key.toLowerCase();
  const b = known.toLowerCase();
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 2) return false;
  return editDistance(a, b) <= 2;
}
