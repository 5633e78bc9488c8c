/**
 * How createApp options are refused: the message shape shared with config.ts's `AppConfig` checks,
 * the hint for an unknown name, and the checks of the options createApp takes beside `AppConfig`
 * (routes, listeners, services, functions). A JavaScript caller (or a spread configuration object) can
 * pass anything; what is wrong is said when the app is built, not by the first request that uses it.
 */
import { unnamedRoute } from '../routing/route.ts';
import type { AppConfig } from './config.ts';
import type { AppOptions } from './create-app.ts';
import { meantName } from './near-names.ts';
import { assertRoleHierarchy } from '../security/role-hierarchy.ts';
import { assertVoters } from '../security/voter.ts';

/** A value as a message quotes it: a string quoted, the kind of an object, never a function's source. */
function described(value: unknown): string {
  if (typeof value === 'string') return `"${value}" (a string)`;
  if (typeof value === 'function') return 'a function';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

export function optionError(name: string, what: string, value: unknown): Error {
  return new Error(`createApp option "${name}" must be ${what}, got ${described(value)}.`);
}

/** An array option whose entries must each pass `ok`; the message quotes the first that does not. */
export function arrayOption(name: string, what: string, value: unknown, ok: (entry: unknown) => boolean): unknown[] {
  if (!Array.isArray(value)) throw optionError(name, what, value);
  const bad = value.findIndex((entry) => !ok(entry));
  if (bad >= 0) throw new Error(`createApp option "${name}" must be ${what}, got ${described(value[bad])} at index ${bad}.`);
  return [...value];
}

/** A non-null object that is not an array (a class instance counts). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Check = (name: string, value: unknown) => void;

const aFunction: Check = (name, value) => {
  if (typeof value !== 'function') throw optionError(name, 'a function', value);
};

/** The methods a `sessionStore` needs (`touch` is optional), as `SessionStore` declares them. */
const SESSION_STORE_METHODS = ['read', 'write', 'destroy'] as const;

/**
 * The options createApp takes beside `AppConfig`, each checked as config.ts's `OPTION_CHECKS` checks
 * those (the type makes a new option need its check). Unchecked, `routes: {}` failed as "routes is not
 * iterable", `environment: 'prod'` was ignored (debug mode stayed on), and a `sessionStore` or
 * `verifyBearerToken` of the wrong kind made every request that used it a 500.
 */
const CREATE_APP_ONLY_CHECKS: { readonly [K in Exclude<keyof AppOptions, keyof AppConfig>]-?: Check } = {
  routes: (name, value) => {
    const routes = arrayOption(name, 'an array of route definitions ({ name, path, controller, … })', value, isObject);
    // Here the index is the application's own (the router counts the profiler's routes too, in debug mode).
    routes.forEach((route, index) => {
      const { name: routeName, path } = route as { name?: unknown; path?: unknown };
      if (typeof routeName !== 'string' || routeName === '') throw unnamedRoute(index, path);
    });
  },
  listeners: (name, value) => void arrayOption(name, 'an array of { hook, listener, placement? }', value, isObject),
  environment: (name, value) => {
    if (!isObject(value)) throw optionError(name, 'an object of variables (as process.env)', value);
  },
  logSink: aFunction,
  sessionStore: (name, value) => {
    const what = 'a session store (read, write and destroy functions; touch optional)';
    if (!isObject(value)) throw optionError(name, what, value);
    const missing = SESSION_STORE_METHODS.find((method) => typeof value[method] !== 'function') ?? (value.touch !== undefined && typeof value.touch !== 'function' ? 'touch' : undefined);
    if (missing !== undefined) throw new Error(`createApp option "${name}" must be ${what}, got an object whose "${missing}" is ${described(value[missing])}.`);
  },
  firewalls: (name, value) => void arrayOption(name, 'an array of firewalls ({ name, pattern?, security?, stateless?, lazy?, context?, logoutPath?, logoutTarget?, logoutCsrfTokenId?, loginPath?, customAuthenticators?, entryPoint?, accessDeniedHandler? })', value, isObject),
  // Each rule's keys and values are checked where the rules are compiled (security/access-control.ts).
  accessControl: (name, value) => void arrayOption(name, 'an array of access control rules ({ path?, host?, methods?, ips?, port?, roles?, allowIf?, requiresChannel? })', value, isObject),
  verifyBearerToken: aFunction,
  refreshMember: aFunction,
  roleHierarchy: (_name, value) => assertRoleHierarchy(value),
  voters: (_name, value) => assertVoters(value),
  localeAware: (name, value) => void arrayOption(name, 'an array of services with a setLocale(locale) function', value, (entry) => isObject(entry) && typeof entry.setLocale === 'function'),
  renderTemplate: aFunction,
  requestIdHeader: (name, value) => {
    if (typeof value !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) throw optionError(name, 'a header name (x-request-id)', value);
  },
};

/** The names createApp takes beside `AppConfig`'s (known to the unknown-name hint). */
export const CREATE_APP_ONLY_OPTIONS = Object.keys(CREATE_APP_ONLY_CHECKS) as readonly (keyof typeof CREATE_APP_ONLY_CHECKS)[];

/**
 * Names no edit distance finds, keyed as `meantName` squashes them (lower case, no `_`): the
 * environment variables whose option is not their camel-case spelling, and serve()'s `hostname`.
 * The other variables (`BODY_LIMIT`, `TRUSTED_HOSTS`…) find their option by spelling.
 */
const OPTION_ALIASES: ReadonlyMap<string, string> = new Map([
  ['appenv', 'env'],
  ['appdebug', 'debug'],
  ['appsecret', 'secret'],
  ['remembermelifetime', 'rememberMeLifetimeSeconds'],
  ['hostname', 'host'],
]);

/** The error for an option createApp does not know, naming the option most likely meant. */
export function unknownOptionError(name: string, configNames: readonly string[]): Error {
  const meant = meantName(name, [...configNames, ...CREATE_APP_ONLY_OPTIONS], OPTION_ALIASES);
  // A createApp-only name handed to loadConfig itself is unknown there: no hint that names it again.
  return new Error(`Unknown createApp option "${name}"${meant !== null && meant !== name ? ` (did you mean "${meant}"?)` : ''}.`);
}

/**
 * Checks what createApp received before anything is built from it: an options object (createApp(null)
 * failed reading `routes` of null, createApp('prod') as an unknown option "0"), and the options it
 * takes beside `AppConfig`. The `AppConfig` options are loadConfig's to check (config.ts), as are
 * unknown names; route definitions are the router's, once they are known to be objects with a name.
 */
export function checkCreateAppOptions(options: unknown): void {
  if (options === undefined) return;
  if (!isObject(options)) throw new TypeError(`createApp expects an options object, got ${described(options)}.`);
  for (const name of CREATE_APP_ONLY_OPTIONS) {
    const value = options[name];
    if (value !== undefined) CREATE_APP_ONLY_CHECKS[name](name, value);
  }
}
