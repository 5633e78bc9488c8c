/**
 * The router: Symfony 5.4's RedirectableCompiledUrlMatcher semantics on path-to-regexp 8 routes, plus a
 * URL generator.
 *
 * Matching (see symfony-reference.md §3.3):
 * - candidates are visited in table order, first match wins; matching is case-sensitive, on the RAW path;
 *   path variables are decoded with decodeURIComponent (a malformed escape = that route does not match);
 * - per candidate: pattern (+ requirements) matches → method allowed? match : collect its methods; the
 *   pattern does not match but matches with the trailing slash toggled → for GET/HEAD, when the route
 *   allows GET (or any method), stop: nothing matched and nothing is allowed (forces the redirect below);
 *   a path ending in two or more slashes is the exception (attemptTrailingSlashes): only a static route
 *   with the path's rtrimmed form stops there, and static routes are tried before the dynamic ones;
 * - `match()`: try the path; methods collected → 405; not GET/HEAD → 404 with the original path;
 *   GET/HEAD → toggle the trailing slash and retry: a match is a redirect to the toggled path (unless that
 *   path could be read as another host), otherwise 404 with the toggled path (methods collected on the
 *   retry are ignored). `/` with nothing matched and nothing allowed → NoConfigurationException.
 * - methods (irms-web's rule for CONTRACT §8.6, where Symfony would serve any method): a route that lists
 *   none serves DEFAULT_METHODS (Symfony's without TRACE and CONNECT), and its `Allow` is that list; a
 *   method no route lists and outside that list is a 405 with that `Allow` on every path, never a 404.
 *
 * Speed: nothing is compiled per request. Static routes that no earlier route can shadow are found in a
 * Map. Every route is also indexed in a trie keyed by the whole segments its path starts with (literal
 * segments, and `:param`-only segments as a wildcard edge); each trie node holds, precomputed and in
 * table order, the routes indexed at it and at its ancestors. A request walks the trie along its own
 * segments and tests only the deepest node's list (lists merged when a wildcard edge branches).
 */
import {
  InvalidParameterException,
  MethodNotAllowedException,
  MissingMandatoryParametersException,
  RouteNotFoundException,
  NoConfigurationException,
  ResourceNotFoundException,
} from '../kernel/exceptions.ts';
import { DEFAULT_METHODS } from '../http/methods.ts';
import {
  CompiledRouteImpl,
  NO_MATCH,
  REQUIREMENT_FAILED,
  type CompiledRoute,
  type RouteDefinition,
} from './route.ts';
import { hardenGeneratedPath, isUnsafeRedirectPath } from './safe-path.ts';
import { nullRecord } from '../http/null-record.ts';
import { isWellFormedText, wellFormed } from '../http/url-encode.ts';

export type { CompiledRoute, RouteDefinition, RouteOptions } from './route.ts';

/** Why a path did not match: the routing exception `match()` throws for it. */
export type RoutingFailure =
  | { failure: 'method-not-allowed'; allowedMethods: string[] }
  | { failure: 'no-configuration'; path: string }
  | { failure: 'not-found'; path: string };

/** Symfony's routing exception for a failure (the message names the last path tried). */
export function routingException(failure: RoutingFailure): MethodNotAllowedException | ResourceNotFoundException {
  if (failure.failure === 'method-not-allowed') return new MethodNotAllowedException(failure.allowedMethods);
  if (failure.failure === 'no-configuration') return new NoConfigurationException();
  return new ResourceNotFoundException(`No routes found for "${failure.path}".`);
}

export interface RouteMatch {
  route: CompiledRoute;
  /** defaults merged with decoded path parameters (path parameters win) */
  params: Record<string, unknown>;
  /** Set when this is a trailing-slash redirect: the toggled RAW path to redirect to (no query). */
  redirectPath?: string;
}

export interface RouteExplanation {
  name: string;
  path: string;
  methods: readonly string[];
  outcome: 'match' | 'path does not match' | 'method not allowed' | 'requirement not met' | 'trailing slash differs' | 'not examined';
}

/**
 * Symfony's UrlGeneratorInterface reference types, with its numbers, so that a port can keep writing
 * `generateUrl(name, params, UrlGeneratorInterface.NETWORK_PATH)`. ABSOLUTE_PATH is the default.
 */
export const UrlGeneratorInterface = Object.freeze({ ABSOLUTE_URL: 0, ABSOLUTE_PATH: 1, RELATIVE_PATH: 2, NETWORK_PATH: 3 } as const);
export type ReferenceType = (typeof UrlGeneratorInterface)[keyof typeof UrlGeneratorInterface];

export interface GenerateOptions {
  /**
   * e.g. 'http://127.0.0.1:8000' — prefixed to the path (a trailing '/' is dropped). A scheme-relative
   * base such as '//example.com:8080' gives Symfony's NETWORK_PATH.
   */
  absoluteBase?: string;
  /**
   * Symfony's RELATIVE_PATH: the current request's raw path info (percent-encoding kept, as
   * Request::getPathInfo gives it); the generated path is written relative to it, before the query
   * string and fragment. A relative reference has no authority, so it cannot be given with absoluteBase.
   */
  relativeTo?: string;
  /**
   * Symfony's RequestContext parameters: values for path variables the caller did not give, before the
   * route's defaults (`_locale`: the request's locale, as LocaleListener sets it on the router context).
   * They never become query parameters.
   */
  context?: Readonly<Record<string, unknown>>;
}

export interface RouterOptions {
  /**
   * Symfony's `kernel.default_locale` as the URL generator receives it: used by `generate()` to pick a
   * localized route (`contact` → `contact.en`) when no `_locale` is given as a parameter or in the
   * context. Without it (null, the default), such a lookup outside a request needs a `_locale`.
   */
  defaultLocale?: string | null;
}

class TrieNode {
  /** Children by literal segment. */
  readonly children = new Map<string, TrieNode>();
  /** Child for a segment that is one `:param` alone (matches any non-empty segment). */
  any: TrieNode | null = null;
  /** Routes indexed exactly at this node. */
  readonly own: CompiledRouteImpl[] = [];
  /** Routes indexed at this node or an ancestor, in table order (filled after construction). */
  candidates: CompiledRouteImpl[] = [];
}

/** Result of one matching pass over the candidates. */
const STOP_FOR_REDIRECT = 1;

/** The path ends in two or more slashes (`//`, `/dir//`). */
function endsWithSlashes(path: string): boolean {
  const last = path.length - 1;
  return last > 0 && path.charCodeAt(last) === 0x2f && path.charCodeAt(last - 1) === 0x2f;
}

/** `rtrim(path, '/') ?: '/'`: the key of Symfony's static route lookup. */
function trimSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(0, end);
}

/** `rtrim(path, '/')`, then the toggled path, or null when there is nothing to toggle (`/`, `//`, ``). */
function togglePath(path: string): string | null {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  if (end === 0) return null;
  return end === path.length ? path + '/' : path.slice(0, end);
}

export class Router {
  readonly routes: readonly CompiledRoute[];
  private readonly table: readonly CompiledRouteImpl[];
  private readonly byName = new Map<string, CompiledRouteImpl>();
  /** Static routes that are the first candidate able to match their path (or its toggled form). */
  private readonly fastStatic = new Map<string, CompiledRouteImpl>();
  private readonly root = new TrieNode();
  /** Every method some route lists by name (a method outside DEFAULT_METHODS is served only there). */
  private readonly namedMethods = new Set<string>();
  /** Scratch list of allowed methods, reused per pass (match() is synchronous). */
  private allowed: string[] = [];
  /** Scratch list of the candidate lists reached by a trie walk. */
  private readonly found: CompiledRouteImpl[][] = [];

  /**
   * Symfony's `$defaultLocale` of the generator (FrameworkBundle passes `%kernel.default_locale%`): the
   * locale whose localized route `generate()` picks when neither the parameters nor the context carry a
   * `_locale`, i.e. outside a request. It only chooses among `name.<locale>` routes; it never fills a
   * `_locale` path variable (Symfony's RequestContext has no `_locale` outside a request either).
   */
  private readonly defaultLocale: string | null;

  constructor(routes: RouteDefinition[], options: RouterOptions = {}) {
    if (!Array.isArray(routes)) throw new TypeError('Router expects an array of route definitions.');
    this.defaultLocale = options.defaultLocale ?? null;
    const table: CompiledRouteImpl[] = [];
    for (let i = 0; i < routes.length; i++) {
      const route = new CompiledRouteImpl(routes[i]!, i);
      if (this.byName.has(route.name)) throw new Error(`Route name "${route.name}" is defined more than once.`);
      this.byName.set(route.name, route);
      for (const method of route.methods) this.namedMethods.add(method);
      table.push(route);
    }
    this.table = Object.freeze(table);
    this.routes = this.table;

    for (const route of table) {
      let node = this.root;
      for (const piece of route.prefixPieces) {
        if (piece === null) {
          node = node.any ??= new TrieNode();
          continue;
        }
        let child = node.children.get(piece);
        if (child === undefined) node.children.set(piece, (child = new TrieNode()));
        node = child;
      }
      node.own.push(route); // table order, since routes are inserted in order
    }
    const fill = (node: TrieNode, inherited: CompiledRouteImpl[]): void => {
      node.candidates = mergeByIndex(inherited, node.own);
      for (const child of node.children.values()) fill(child, node.candidates);
      if (node.any !== null) fill(node.any, node.candidates);
    };
    fill(this.root, []);

    // One scan of the earlier candidates of each static route, for two things:
    // - CompiledUrlMatcherDumper::groupStaticRoutes compiles a static route as dynamic when an earlier
    //   dynamic route can match its path with or without the trailing slash (`$url`, `$url.'/'`); as a
    //   regex it takes one trailing slash only, so such a route does not serve `/dir//`, and it is tried in
    //   table order, not ahead of the dynamic routes, for a path ending in more slashes (attemptTrailingSlashes);
    // - a static route may take the O(1) path only if no earlier route can match its path or the toggled
    //   path (an earlier exact match would win; an earlier toggled match would stop for a redirect).
    for (const route of table) {
      const path = route.staticPath;
      if (path === null) continue;
      const toggled = togglePath(path);
      // groupStaticRoutes' other form of the path: `$url` for a route ending in `/`, else `$url.'/'` (`//` for `/`).
      const form = route.extraSlashes ? path.slice(0, -1) : path + '/';
      let shadowed = this.fastStatic.has(path);
      for (const other of this.candidatesFor(path, true)) {
        if (other.index >= route.index || (shadowed && !route.trimmedLookup)) break;
        const exact = other.probe(path);
        const flipped = toggled === null ? NO_MATCH : other.probe(toggled);
        if (exact !== NO_MATCH || flipped !== NO_MATCH) shadowed = true;
        if (!other.trimmedLookup && (typeof exact === 'object' || typeof (form === toggled ? flipped : other.probe(form)) === 'object')) {
          route.extraSlashes = false;
          route.trimmedLookup = false;
        }
      }
      if (!shadowed) this.fastStatic.set(path, route);
    }
  }

  get(name: string): CompiledRoute | undefined {
    return this.byName.get(name);
  }

  /**
   * Matches a RAW path (percent-encoding kept) for the effective upper-case method.
   * Throws MethodNotAllowedException (405), ResourceNotFoundException (404) or NoConfigurationException
   * (`/` with nothing configured there).
   */
  match(pathInfo: string, method: string): RouteMatch {
    const result = this.lookup(pathInfo, method);
    if ('route' in result) return result;
    throw routingException(result);
  }

  /**
   * `match()` without the throw: the match or why there is none. The router listener builds the
   * exceptions itself — a throw from inside the router would be one more exception per 404.
   */
  lookup(pathInfo: string, method: string): RouteMatch | RoutingFailure {
    const path = pathInfo === '' ? '/' : pathInfo;
    const redirectable = method === 'GET' || method === 'HEAD';
    const first = this.attempt(path, method, redirectable);
    if (typeof first === 'object') return first;
    if (first !== STOP_FOR_REDIRECT && this.allowed.length > 0) {
      const allowed = this.allowed;
      this.allowed = [];
      return { failure: 'method-not-allowed', allowedMethods: allowed };
    }
    // TRACE, CONNECT or a method no route lists: refused on every path, never a 404 (CONTRACT §8.6).
    if (!this.namedMethods.has(method) && !DEFAULT_METHODS.includes(method)) {
      return { failure: 'method-not-allowed', allowedMethods: [...DEFAULT_METHODS] };
    }
    if (path === '/' && first !== STOP_FOR_REDIRECT) return { failure: 'no-configuration', path };
    if (!redirectable) return { failure: 'not-found', path };
    const toggled = togglePath(path);
    if (toggled === null) return { failure: 'not-found', path };
    const retry = this.attempt(toggled, method, true);
    if (typeof retry === 'object' && !isUnsafeRedirectPath(toggled)) {
      retry.redirectPath = toggled;
      return retry;
    }
    return { failure: 'not-found', path: toggled };
  }

  /**
   * One pass over the candidates for `path`. Returns the match, STOP_FOR_REDIRECT, or 0 (no match; the
   * methods of routes that matched the path but not the method are left in `this.allowed`).
   */
  private attempt(path: string, method: string, redirectable: boolean): RouteMatch | typeof STOP_FOR_REDIRECT | 0 {
    this.allowed.length = 0;
    const fast = this.fastStatic.get(path);
    if (fast !== undefined && fast.allowsMethod(method)) {
      return { route: fast, params: fast.probe(path) as Record<string, unknown> };
    }
    const candidates = this.candidatesFor(path, redirectable);
    if (endsWithSlashes(path)) return this.attemptTrailingSlashes(path, method, redirectable, candidates);
    let toggled: string | null | undefined;
    for (let i = 0; i < candidates.length; i++) {
      const route = candidates[i]!;
      const result = route.probe(path);
      if (typeof result === 'object') {
        if (route.allowsMethod(method)) return { route, params: result };
        this.allow(route);
        continue;
      }
      if (redirectable && route.allowsGet) {
        if (toggled === undefined) toggled = togglePath(path);
        if (toggled !== null && typeof route.probe(toggled) === 'object') {
          this.allowed.length = 0;
          return STOP_FOR_REDIRECT;
        }
      }
    }
    return 0;
  }

  /** The methods of a route whose path matched but whose methods did not, for the 405's Allow. */
  private allow(route: CompiledRouteImpl): void {
    const methods = route.anyMethod ? DEFAULT_METHODS : route.methods;
    for (let j = 0; j < methods.length; j++) if (!this.allowed.includes(methods[j]!)) this.allowed.push(methods[j]!);
  }

  /**
   * attempt() for a path ending in two or more slashes, where Symfony's two lookups part ways
   * (CompiledUrlMatcherTrait::doMatch): first the routes it keeps static, looked up by the path without
   * its trailing slashes (`$this->staticRoutes[$trimmedPathinfo]`: one with that path stops the pass for
   * the redirect, one ending in `/` serves the path), then the others, whose regex takes one optional
   * trailing slash (`/?$`): they match the path itself or not at all, and never stop the pass. So GET
   * `/about//` is not stopped by `/:page` (a later `/*path` serves it), and GET `//` is stopped by `/`.
   */
  private attemptTrailingSlashes(path: string, method: string, redirectable: boolean, candidates: readonly CompiledRouteImpl[]): RouteMatch | typeof STOP_FOR_REDIRECT | 0 {
    const trimmed = trimSlashes(path);
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < candidates.length; i++) {
        const route = candidates[i]!;
        if (route.trimmedLookup !== (pass === 0)) continue;
        const result = route.probe(path);
        if (typeof result === 'object') {
          if (route.allowsMethod(method)) return { route, params: result };
          this.allow(route);
          continue;
        }
        if (pass === 0 && redirectable && route.allowsGet && route.staticPath === trimmed) {
          this.allowed.length = 0;
          return STOP_FOR_REDIRECT;
        }
      }
    }
    return 0;
  }

  /**
   * The routes that may match `path` (or, with `withSlashChild`, its toggled form), in table order: the
   * precomputed list of the deepest trie node reached along the path's segments. Where a `:param`
   * segment and a literal segment both fit, both branches are followed and their lists merged.
   */
  private candidatesFor(path: string, withSlashChild: boolean): readonly CompiledRouteImpl[] {
    const found = this.found;
    found.length = 0;
    walk(this.root, path, 0, withSlashChild, found);
    return found.length === 1 ? found[0]! : mergeDistinct(found);
  }

  /**
   * Builds a URL path for a named route. Values are stringified and percent-encoded; a missing variable
   * falls back to the route's default when it is mandatory (outside an optional group). Parameters that
   * are not path variables are appended as a query string (as Symfony does), except those equal to the
   * route's default (PHP's `==`); `_fragment` (given, else the route's default) becomes the `#fragment`.
   * An optional group is written whenever its
   * variables are given, even with their default values: that is path-to-regexp's `compile`, which
   * CONTRACT §4.3 names (Symfony would leave out a trailing optional variable equal to its default;
   * both URLs match the same route with the same parameters).
   *
   * Localized routes (Symfony's CompiledUrlGenerator::generate, which the framework's router uses): a
   * route defined once per locale as `<name>.<locale>`, with the defaults `_locale` and
   * `_canonical_route: '<name>'`, is generated by its canonical name. The locale is the `_locale`
   * parameter, else the context's `_locale` (the request's locale), else the router's defaultLocale;
   * see localizedRoute for the lookup. On such a route (any route with both defaults, also when named
   * directly), a given `_locale` that is not a path variable is dropped rather than becoming a query
   * parameter, and a `_locale` path variable not given is the route's own `_locale` default, not the
   * context's. Error messages then name the localized route (`contact.fr`), as Symfony's do.
   */
  generate(name: string, params: Record<string, unknown> = {}, options: GenerateOptions = {}): string {
    // Checked first: a caller asking for both would otherwise get one of them silently.
    if (options.relativeTo !== undefined && options.absoluteBase !== undefined && options.absoluteBase !== '') {
      throw new TypeError('Router.generate: relativeTo and absoluteBase exclude each other (a relative path has no scheme or host).');
    }
    const route = this.localizedRoute(name, params, options.context) ?? this.byName.get(name);
    if (route === undefined) {
      throw new RouteNotFoundException(`Unable to generate a URL for the named route "${name}" as such route does not exist.`);
    }
    params = localeParams(route, params);
    // From here on, Symfony's doGenerate receives the localized name.
    name = route.name;
    const values = nullRecord<string | string[]>();
    const missing: string[] = [];
    // Symfony reports missing variables first, then the invalid one it meets first walking the path
    // from its end (doGenerate prepends): in path order, the last one found here.
    let invalid: InvalidParameterException | null = null;
    const context = options.context;
    for (const variable of route.variables) {
      const required = route.requiredVariables.has(variable);
      const value = mergedParam(variable, params, context, required ? route.defaults : undefined);
      if (value === undefined || (Array.isArray(value) && value.length === 0)) {
        if (required) missing.push(variable);
        continue;
      }
      // An empty optional variable (null included: Symfony skips an optional one that is null) leaves its group out.
      if (!required && (value === null || value === '' || value === false)) continue;
      // A function (a getter left uncalled) is PHP's Closure, which has no __toString: doGenerate cannot use
      // it as a string. String() would write its source code into the URL.
      if (typeof value === 'function') {
        invalid = new InvalidParameterException(`Parameter "${variable}" for route "${name}" must be a scalar to generate a URL.`);
        continue;
      }
      let stringValue: string | string[];
      let text: string;
      if (route.wildcardVariables.has(variable)) {
        // Holes of a sparse array are skipped, as `undefined` is elsewhere (a hole made compile throw).
        stringValue = Array.isArray(value) ? Object.keys(value).map((i) => phpString((value as unknown[])[Number(i)])) : phpString(value).split('/');
        text = stringValue.join('/');
      } else {
        // PHP converts an object with __toString where a string is wanted (preg_match, concatenation).
        if (typeof value === 'object' && value !== null && !isStringable(value)) {
          invalid = new InvalidParameterException(`Parameter "${variable}" for route "${name}" must be a scalar to generate a URL.`);
          continue;
        }
        stringValue = text = phpString(value);
        // Symfony's default requirement `[^/]++`: a slash would not match this route again.
        if (!route.requirements.has(variable) && text.includes('/')) {
          invalid = new InvalidParameterException(`Parameter "${variable}" for route "${name}" must match "[^/]++" ("${text}" given) to generate a corresponding URL.`);
          continue;
        }
      }
      const requirement = route.requirements.get(variable);
      // An empty value is given, not missing: Symfony checks it against the requirement, which no path
      // variable here can satisfy (UrlGeneratorTest::testRequiredParamAndEmptyPassed). A lone surrogate
      // (a title cut inside an emoji) has no UTF-8 form: UrlGenerator::doGenerate's `preg_match(…'u')`
      // fails on such bytes (utf8 recipe), so it is InvalidParameterException, not encodeURIComponent's URIError.
      if (text === '' || !isWellFormedText(text) || (requirement !== undefined && !requirement.generator.test(text))) {
        const expected = requirement !== undefined ? requirement.source : route.wildcardVariables.has(variable) ? '.+' : '[^/]++';
        invalid = new InvalidParameterException(
          `Parameter "${variable}" for route "${name}" must match "${expected}" ("${text}" given) to generate a corresponding URL.`,
        );
        continue;
      }
      values[variable] = stringValue;
    }
    if (missing.length > 0) {
      throw new MissingMandatoryParametersException(
        `Some mandatory parameters are missing (${missing.map((m) => `"${m}"`).join(', ')}) to generate a URL for route "${name}".`,
      );
    }
    if (invalid !== null) throw invalid;
    let url = hardenGeneratedPath(route.build(values));
    // Relative to the encoded path, so that it compares segment by segment with the raw path info.
    if (options.relativeTo !== undefined) url = relativePath(options.relativeTo, url);

    const query: string[] = [];
    // UrlGenerator::doGenerate: `$fragment = $defaults['_fragment'] ?? ''`, replaced by a given one.
    const fallbackFragment = route.defaults._fragment;
    // rawurlencode casts as PHP does: `true` is `#1`, `false` no fragment (phpString).
    let fragment: string | undefined = fallbackFragment === undefined || fallbackFragment === null ? undefined : phpString(fallbackFragment);
    for (const [key, value] of Object.entries(params)) {
      if (route.variables.includes(key) || value === undefined || value === null) continue;
      if (key === '_fragment') {
        fragment = phpString(value);
        continue;
      }
      if (Object.hasOwn(route.defaults, key) && sameAsDefault(value, route.defaults[key])) continue;
      appendQuery(query, encodeURIComponent(wellFormed(key)), value, 0);
    }
    if (query.length > 0) url += '?' + query.join('&');
    if (fragment !== undefined && fragment !== '') url += '#' + encodeFragment(fragment);

    if (options.absoluteBase !== undefined && options.absoluteBase !== '') {
      url = options.absoluteBase.replace(/\/+$/, '') + url;
    }
    return url;
  }

  /**
   * The route `<name>.<locale>` whose `_canonical_route` default is `name`, trying the locale and then
   * its part before the first `_` (`fr_CA` → `fr`), or undefined. A `<name>.<locale>` route with another
   * canonical name (or none) is skipped, and then the plain `name` is used even if that probe was the
   * last one: Symfony's plain UrlGenerator would keep the last probed route there, but the framework's
   * router uses the CompiledUrlGenerator, which falls back to `name`.
   */
  private localizedRoute(
    name: string,
    params: Readonly<Record<string, unknown>>,
    context: Readonly<Record<string, unknown>> | undefined,
  ): CompiledRouteImpl | undefined {
    // `$parameters['_locale'] ?? $context->getParameter('_locale') ?: $defaultLocale`: `??` skips only a
    // missing or null value, then any PHP-falsy one ('', '0', 0, false) gives way to the default locale.
    let chosen = ownValue(params, '_locale');
    if (chosen === undefined || chosen === null) chosen = context === undefined ? undefined : ownValue(context, '_locale');
    let locale = localeText(chosen) ?? this.defaultLocale;
    if (locale === null) return undefined;
    for (;;) {
      const route = this.byName.get(`${name}.${locale}`);
      if (route !== undefined && route.defaults._canonical_route === name) return route;
      // strstr($locale, '_', true): the part before the first `_`, which has no `_` left to cut.
      const cut = locale.indexOf('_');
      if (cut < 0) return undefined;
      locale = locale.slice(0, cut);
    }
  }

  /** For the profiler's routing panel: every route in table order with why it did or did not match (first pass). */
  explain(pathInfo: string, method: string): RouteExplanation[] {
    const path = pathInfo === '' ? '/' : pathInfo;
    const redirectable = method === 'GET' || method === 'HEAD';
    const toggled = togglePath(path);
    // A path ending in two or more slashes is looked up as attemptTrailingSlashes does: the routes Symfony
    // keeps static first, and only one of them with the trimmed path differs by the trailing slash.
    const slashes = endsWithSlashes(path);
    const trimmed = slashes ? trimSlashes(path) : '';
    const order = slashes ? [...this.table.filter((r) => r.trimmedLookup), ...this.table.filter((r) => !r.trimmedLookup)] : this.table;
    const out: RouteExplanation[] = new Array(this.table.length);
    let done = false;
    for (const route of order) {
      let outcome: RouteExplanation['outcome'];
      if (done) {
        outcome = 'not examined';
      } else {
        const result = route.probe(path);
        if (typeof result === 'object') {
          if (route.allowsMethod(method)) {
            outcome = 'match';
            done = true;
          } else {
            outcome = 'method not allowed';
          }
        } else if (slashes ? route.trimmedLookup && route.staticPath === trimmed : toggled !== null && typeof route.probe(toggled) === 'object') {
          outcome = 'trailing slash differs';
          if (redirectable && route.allowsGet) done = true;
        } else {
          outcome = result === REQUIREMENT_FAILED ? 'requirement not met' : 'path does not match';
        }
      }
      out[route.index] = { name: route.name, path: route.path, methods: route.methods, outcome };
    }
    return out;
  }
}

/**
 * Symfony's UrlGenerator::getRelativePath: `targetPath` as a reference relative to `basePath`, both paths
 * as they appear in a URL (encoded, no query). The last segment of each is a file, the rest directories;
 * the directories they share from the start are dropped and each other one of the base costs a `../`.
 */
export function relativePath(basePath: string, targetPath: string): string {
  if (basePath === targetPath) return '';
  const sourceDirs = withoutLeadingSlash(basePath).split('/');
  const targetDirs = withoutLeadingSlash(targetPath).split('/');
  sourceDirs.pop();
  // split always yields at least one element, so there is a file to pop (possibly '').
  const targetFile = targetDirs.pop() as string;
  let shared = 0;
  // Only a common prefix counts: after the first difference, equal names lead to different places.
  while (shared < sourceDirs.length && shared < targetDirs.length && sourceDirs[shared] === targetDirs[shared]) shared++;
  targetDirs.push(targetFile);
  const path = '../'.repeat(sourceDirs.length - shared) + targetDirs.slice(shared).join('/');
  return needsDotPrefix(path) ? './' + path : path;
}

function withoutLeadingSlash(path: string): string {
  return path.charCodeAt(0) === 0x2f ? path.slice(1) : path;
}

/**
 * RFC 3986 §4.2: an empty reference means "this document" and one starting with `/` is absolute, while a
 * first segment with a colon reads as a scheme (`file:x`). `./` keeps each one a relative path.
 */
function needsDotPrefix(path: string): boolean {
  if (path === '' || path.charCodeAt(0) === 0x2f) return true;
  const colon = path.indexOf(':');
  if (colon < 0) return false;
  const slash = path.indexOf('/');
  return slash < 0 || colon < slash;
}

/** Descends from `node` along the segment of `path` that starts at `start`; pushes each branch's list. */
function walk(node: TrieNode, path: string, start: number, withSlashChild: boolean, found: CompiledRouteImpl[][]): void {
  const slash = path.indexOf('/', start);
  const end = slash === -1 ? path.length : slash;
  const literal = node.children.size === 0 ? undefined : node.children.get(path.slice(start, end));
  const any = end > start ? node.any : null;
  if (literal === undefined && any === null) {
    found.push(node.candidates);
    return;
  }
  if (literal !== undefined) descend(literal, path, slash, withSlashChild, found);
  if (any !== null) descend(any, path, slash, withSlashChild, found);
}

function descend(child: TrieNode, path: string, slash: number, withSlashChild: boolean, found: CompiledRouteImpl[][]): void {
  if (slash !== -1) {
    walk(child, path, slash + 1, withSlashChild, found);
    return;
  }
  // Whole path consumed: the toggled `path + '/'` may also match routes indexed one level deeper.
  const slashChild = withSlashChild ? child.children.get('') : undefined;
  found.push((slashChild ?? child).candidates);
}

/** Merges lists sorted by table index, dropping routes present in several (shared ancestors). */
function mergeDistinct(lists: CompiledRouteImpl[][]): CompiledRouteImpl[] {
  const positions = new Array<number>(lists.length).fill(0);
  const out: CompiledRouteImpl[] = [];
  for (;;) {
    let best = -1;
    let bestIndex = Infinity;
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i]!;
      const p = positions[i]!;
      if (p < list.length && list[p]!.index < bestIndex) {
        bestIndex = list[p]!.index;
        best = i;
      }
    }
    if (best === -1) return out;
    const route = lists[best]![positions[best]!++]!;
    if (out.length === 0 || out[out.length - 1] !== route) out.push(route);
  }
}

function mergeByIndex(a: CompiledRouteImpl[], b: CompiledRouteImpl[]): CompiledRouteImpl[] {
  if (b.length === 0) return a;
  if (a.length === 0) return b.slice();
  const out: CompiledRouteImpl[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]!.index <= b[j]!.index ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/**
 * The value UrlGenerator::doGenerate uses for a path variable, `array_replace($defaults, $context,
 * $parameters)[$name]`: a key given as null is present there, so null is a value (it overrides the
 * context and the default, and a mandatory variable that is null is '' and fails its requirement:
 * InvalidParameterException, UrlGeneratorTest::testRelativeUrlWithNullParameterButNotOptional), not a
 * missing one. `undefined`, which PHP has no equivalent of, is treated as not given. `defaults` is
 * undefined for an optional variable, whose group is simply left out when it is not given.
 */
function mergedParam(
  variable: string,
  params: Readonly<Record<string, unknown>>,
  context: Readonly<Record<string, unknown>> | undefined,
  defaults: Readonly<Record<string, unknown>> | undefined,
): unknown {
  if (Object.hasOwn(params, variable) && params[variable] !== undefined) return params[variable];
  if (context !== undefined && Object.hasOwn(context, variable) && context[variable] !== undefined) return context[variable];
  if (defaults !== undefined && Object.hasOwn(defaults, variable)) return defaults[variable];
  return undefined;
}

function ownValue(record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * A `_locale` value as the locale lookup reads it, or null for PHP-falsy ones (`?:` then takes the
 * default locale). A string or number is its PHP string (`true` is '1'); an array or object, which PHP
 * could not cut with strstr, is no locale here rather than an error.
 */
function localeText(value: unknown): string | null {
  if (typeof value === 'string') return value === '' || value === '0' ? null : value;
  if (typeof value === 'number') return value === 0 ? null : String(value);
  if (value === true) return '1';
  return null;
}

/**
 * The `_locale` rule of Symfony's generate() for a localized route (both `_canonical_route` and
 * `_locale` defaults set, `isset`: not null): when `_locale` is not a path variable, a given one is
 * dropped, since the route already fixes the locale (it would otherwise become `?_locale=fr`); when it
 * is one and not given (or null), the route's own `_locale` is used, ahead of the context's (the
 * request's locale), so that `contact.fr` is always generated in French. `params` is left untouched.
 */
function localeParams(route: CompiledRouteImpl, params: Record<string, unknown>): Record<string, unknown> {
  const defaults = route.defaults;
  const fixed = defaults._locale;
  if (defaults._canonical_route === undefined || defaults._canonical_route === null || fixed === undefined || fixed === null) return params;
  if (!route.variables.includes('_locale')) {
    if (!Object.hasOwn(params, '_locale')) return params;
    const { _locale: _dropped, ...rest } = params;
    return rest;
  }
  const given = ownValue(params, '_locale');
  return given === undefined || given === null ? { ...params, _locale: fixed } : params;
}

/**
 * A path value as PHP's string conversion writes it (UrlGenerator concatenates the value): `true` is
 * "1", `false` and null are "" (JavaScript's String gives "true", "false" and "null").
 */
function phpString(value: unknown): string {
  if (typeof value === 'boolean') return value ? '1' : '';
  if (value === null) return '';
  return String(value);
}

/**
 * An object PHP would convert with `__toString` (UrlGenerator::doGenerate's caster, `(string) $v`): one
 * with a toString of its own or its class's (a Date, a URL, an id class), not Object.prototype's
 * "[object Object]" nor an array's.
 */
function isStringable(value: object): boolean {
  if (Array.isArray(value)) return false;
  const toString: unknown = (value as { toString?: unknown }).toString;
  return typeof toString === 'function' && toString !== Object.prototype.toString;
}

/** PHP http_build_query style (RFC 3986 encoding): arrays and objects become `key[sub]=value`. */
function appendQuery(out: string[], key: string, value: unknown, depth: number): void {
  // A function is PHP's Closure: no public properties and no __toString, so the caster leaves it an
  // object, of which http_build_query writes nothing (String() wrote its source code).
  if (value === undefined || value === null || typeof value === 'function') return;
  // doGenerate's caster: an object is its public properties, or, having none, its __toString.
  if (typeof value === 'object' && (Object.keys(value).length > 0 || !isStringable(value))) {
    if (depth > 8) return;
    // Object.entries skips the holes of a sparse array, as http_build_query has no such entries.
    const entries = Object.entries(value);
    for (const [k, v] of entries) appendQuery(out, `${key}%5B${encodeURIComponent(wellFormed(k))}%5D`, v, depth + 1);
    return;
  }
  const text = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
  // http_build_query encodes whatever bytes it is given; a lone surrogate (no UTF-8 form, a URIError
  // for encodeURIComponent) is written as U+FFFD, as rawUrlEncode writes it elsewhere.
  out.push(`${key}=${encodeURIComponent(wellFormed(text))}`);
}

/**
 * The fragment as UrlGenerator::doGenerate writes it: `strtr(rawurlencode($fragment), QUERY_FRAGMENT_DECODED)`,
 * readable `/ ? @ : ! ; , *` only. `& = + $ ' ( )` stay encoded (this wrote them raw), and since the
 * browser hands the fragment to scripts undecoded (`location.hash`), they see Symfony's bytes.
 */
function encodeFragment(fragment: string): string {
  return encodeURIComponent(wellFormed(fragment))
    .replace(/['()]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%(2F|3F|40|3A|3B|2C)/g, (e) => decodeURIComponent(e));
}

/**
 * Whether an extra parameter equals the route's default, so it stays out of the query string: Symfony
 * compares with PHP's `==`, under which `'10'` equals `10` (phpLooseEquals). Arrays
 * are equal under `==` when they hold the same keys with equal values, in any order
 * (UrlGeneratorTest::testArrayQueryParamSameAsDefault: `[1 => 'bar', 0 => 'foo']` is the default `['foo', 'bar']`).
 */
function sameAsDefault(value: unknown, fallback: unknown, depth = 0): boolean {
  if (value === fallback) return true;
  if (fallback === null) return looselyNull(value);
  if (isScalar(value) && isScalar(fallback)) return phpLooseEquals(value, fallback);
  if (!isContainer(value) || !isContainer(fallback) || depth > 8) return false;
  const keys = Object.keys(value);
  if (keys.length !== Object.keys(fallback).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(fallback, key) || !sameAsDefault(value[key], fallback[key], depth + 1)) return false;
  }
  return true;
}

type Scalar = string | number | boolean;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** PHP 8's numeric strings: optional blanks around a decimal or exponent number (`' 1e1'`, `'01'`, `'.5'`). */
const NUMERIC_STRING = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t\n\r\v\f]*$/;

/**
 * PHP 8's `==` on two scalars: a boolean compares truthiness (`'0'` and `''` are false), two numbers or
 * numeric strings compare as numbers (`'01' == 1`, `'1e1' == '10'`), anything else as strings.
 */
function phpLooseEquals(a: Scalar, b: Scalar): boolean {
  if (typeof a === 'boolean' || typeof b === 'boolean') return phpTruthy(a) === phpTruthy(b);
  const numericA = typeof a === 'number' || NUMERIC_STRING.test(a);
  const numericB = typeof b === 'number' || NUMERIC_STRING.test(b);
  if (numericA && numericB) return Number(a) === Number(b);
  return String(a) === String(b);
}

/**
 * PHP 8's `$value == null`: a string compares with '' (so `'0'` is not null), anything else by truthiness
 * (`0`, `false` and an empty array are null). A default of null is the common "no filter" default: an
 * empty value for it stays out of the query string, as array_udiff_assoc leaves it out in doGenerate.
 */
function looselyNull(value: unknown): boolean {
  if (typeof value === 'string') return value === '';
  if (isScalar(value)) return !phpTruthy(value);
  return isContainer(value) && Object.keys(value).length === 0;
}

function phpTruthy(value: Scalar): boolean {
  if (typeof value === 'string') return value !== '' && value !== '0';
  return typeof value === 'number' ? value !== 0 : value;
}

/** An array or a plain object: what http_build_query writes as `key[sub]=value` (a Date is a scalar here). */
function isContainer(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !(value instanceof Date);
}
