/**
 * Route definitions and their compiled form.
 *
 * Paths use path-to-regexp 8 syntax (`/members/:id`, `/blog{/:page}`, `/files/*rest`) and are compiled
 * once, at router construction, with `sensitive: true` and `trailing: false` (Symfony routes are
 * case-sensitive and the trailing-slash policy is the router's, not path-to-regexp's). Requirements are
 * compiled here too, as `^(?:req)$`; nothing is compiled per request.
 */
import type { CacheOptions } from '../listeners/http-cache-listener.ts';
import type { IsGrantedOption } from '../listeners/is-granted-listener.ts';
import type { ConverterSpec } from '../listeners/param-converter-listener.ts';
import type { SecurityOption } from '../listeners/security-listener.ts';
import type { TemplateOption } from '../listeners/template-listener.ts';
import { DEFAULT_METHODS } from '../http/methods.ts';
import { compile, parse, pathToRegexp, type Key, type Token } from 'path-to-regexp';
import type { Controller } from '../kernel/events.ts';

/**
 * Route options. The named ones are the "annotations" the built-in listeners act on (README, "Route
 * options"); any other key is kept for the application's own listeners (`_route_options`).
 */
export interface RouteOptions {
  /** 401 for anonymous requests, or a redirect to LOGIN_PATH for HTML clients. */
  requiresLogin?: boolean;
  /** The route uses no session: starting one is an error in debug mode, a warning otherwise. */
  stateless?: boolean;
  /** HTTP cache headers and conditional 304s (Sensio's @Cache). */
  cache?: CacheOptions;
  /** The controller returns data; kernel.view renders it (Sensio's @Template). */
  template?: TemplateOption;
  /** Typed route parameters, per variable (Sensio's @ParamConverter); 404 when conversion fails. */
  converters?: Record<string, ConverterSpec>;
  /** A predicate on the request and member (Sensio's @Security): 403, or 401 for anonymous requests. */
  security?: SecurityOption;
  /** Roles the member must have (Sensio's @IsGranted). */
  isGranted?: IsGrantedOption;
  [key: string]: unknown;
}

export interface RouteDefinition {
  name: string;
  /** path-to-regexp 8 syntax: '/members/:id', '/blog{/:page}', '/files/*rest'. */
  path: string;
  /** Upper-cased when compiled; undefined or [] = any method. */
  methods?: readonly string[];
  controller: Controller;
  defaults?: Record<string, unknown>;
  /** Full-match (anchored) test on the DECODED parameter value; never a regex built from request input. */
  requirements?: Record<string, string | RegExp>;
  options?: RouteOptions;
}

export interface CompiledRoute {
  readonly name: string;
  readonly path: string;
  /** Upper-case, each once; empty = any method. */
  readonly methods: readonly string[];
  readonly definition: RouteDefinition;
  /** Position in the route table (0-based). */
  readonly index: number;
  readonly controller: Controller;
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly options: Readonly<RouteOptions>;
  /** Path variable names, in path order, each once. */
  readonly variables: readonly string[];
  /** True when the path has no variables and no optional groups (matched by string equality). */
  readonly isStatic: boolean;
}

/** `{name}` with nothing but a name inside: no optional group of path-to-regexp looks like that. */
const SYMFONY_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/;

/** The keys a RouteDefinition may have. */
const DEFINITION_KEYS: ReadonlySet<string> = new Set(['name', 'path', 'methods', 'controller', 'defaults', 'requirements', 'options']);

/** `probe()` results other than a params object. */
export const NO_MATCH = 0;
export const REQUIREMENT_FAILED = 1;
export type ProbeResult = Record<string, unknown> | typeof NO_MATCH | typeof REQUIREMENT_FAILED;

/**
 * Literal route text is matched against the RAW request path, so characters a client always
 * percent-encodes in a path (controls, space, `"`, `#`, `<`, `>`, `?`, backtick, `{`, `}`, DEL and all
 * non-ASCII) are encoded here the same way (UTF-8, upper-case hex): a route `/café` matches `/caf%C3%A9`.
 */
const LITERAL_ENCODE = /[\u0000-\u0020"#<>?`{}\u007f]|[^\u0000-\u007f]/gu;
function encodeLiteral(text: string): string {
  return text.replace(LITERAL_ENCODE, (c) => encodeURIComponent(c));
}

/** A `%` that does not start a `%XX` escape. */
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

/**
 * A path value decoded as Symfony's matcher decodes the path, `rawurldecode`: each `%XX` is that byte and
 * a `%` that starts no escape stays (`/search/100%` is `100%`, `%zz` is `%zz`; decodeURIComponent threw
 * and the route did not match). Bytes that are no UTF-8 give null, no match: the recipe's `utf8` option
 * compiles every route regex with `u`, which fails on such a subject.
 */
function safeDecode(value: string): string | null {
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value.replace(STRAY_PERCENT, '%25'));
  } catch {
    return null;
  }
}

/** A Unicode property escape (`\p{L}`, `\pL`, `\P{…}`) not itself escaped by a backslash before it. */
const PROPERTY_ESCAPE = /(?<!\\)((?:\\\\)*)\\([pP])([CLMNPSZ]|\{)/g;

/**
 * A string requirement as Symfony's Route::sanitizeRequirement leaves it: a leading `^` or `\A` and a
 * trailing `$` or `\z` are dropped (JavaScript reads `\A` and `\z` as the letters A and z, so such a
 * route could never match), and an empty requirement is refused.
 */
function sanitizeRequirement(routeName: string, variable: string, regex: string): string {
  let out = regex;
  if (out.startsWith('^')) out = out.slice(1);
  else if (out.startsWith('\\A')) out = out.slice(2);
  if (out.endsWith('$') && !out.endsWith('\\$')) out = out.slice(0, -1);
  else if (out.endsWith('\\z') && !out.endsWith('\\\\z')) out = out.slice(0, -2);
  if (out === '') throw new Error(`Routing requirement for "${variable}" of route "${routeName}" cannot be empty.`);
  return out;
}

/**
 * A string requirement compiled as Symfony compiles it with the `utf8` option (on in the 5.4 recipe), with
 * the `u` flag. One that names Unicode properties (`\p{L}+`, PCRE's `\pL+`) must have it, without which
 * JavaScript reads `\p{L}` as the letters "p{L}": a pattern `u` refuses then fails the build.
 */
function compileStringRequirement(requirement: string): RegExp {
  let named = false;
  const unicode = requirement.replace(PROPERTY_ESCAPE, (_all, slashes: string, p: string, name: string) => {
    named = true;
    return `${slashes}\\${p}${name === '{' ? '{' : `{${name}}`}`;
  });
  // `s`: RouteCompiler::compilePattern wraps the route regex as `{^…$}sD`, so `.` also takes a newline
  // (`%0A` in a value): `.+` refused `a%0Ab`, which Symfony matches.
  if (named) return new RegExp(`^(?:${unicode})$`, 'su');
  // RouteCompiler::compile adds `u` to every route regex under the recipe's `utf8: true`, so `.` and
  // `[^/]` take a whole character and `{1,8}` counts characters: without it an emoji counted twice and
  // `[^/]{1,8}` refused four of them. A pattern PCRE takes but `u` refuses (`\_`, `\-` outside a class)
  // keeps the plain flags rather than failing the build.
  try {
    return new RegExp(`^(?:${requirement})$`, 'su');
  } catch {
    return new RegExp(`^(?:${requirement})$`, 's');
  }
}

function compileRequirement(routeName: string, variable: string, requirement: string | RegExp): RegExp {
  try {
    if (requirement instanceof RegExp) {
      // Without `m`: with it the anchors added here matched at any line, so `/\d+/m` accepted `1%0A<x>`;
      // Symfony's route regex (`{^…$}sD`, RouteCompiler::compilePattern) anchors at the whole value.
      return new RegExp(`^(?:${requirement.source})$`, requirement.flags.replace(/[gym]/g, ''));
    }
    if (typeof requirement !== 'string') throw new TypeError('a requirement must be a string or a RegExp');
    return compileStringRequirement(requirement);
  } catch (error) {
    throw new Error(
      `Invalid requirement for parameter "${variable}" of route "${routeName}": ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function requirementSource(requirement: string | RegExp): string {
  return requirement instanceof RegExp ? requirement.source : requirement;
}

/**
 * The requirement as Symfony's UrlGenerator::doGenerate checks a value against it: look-around groups
 * removed and case-insensitive (`'#^'.preg_replace(<look-arounds>, '', $req).'$#i'`, plus `u` with
 * utf8), so `[a-z]{2}` accepts `EN` and `(?!admin)[a-z]+` accepts `admin` there, though the matcher
 * (case-sensitive, look-arounds kept) would not match the URL it gives.
 */
function generatorRequirement(compiled: RegExp, fromString: boolean): RegExp {
  // doGenerate's `#^…$#i(u)` has no `s`, unlike the matcher's regex: a string requirement's `.` takes no newline there.
  const own = fromString ? compiled.flags.replace('s', '') : compiled.flags;
  const flags = own.includes('i') ? own : own + 'i';
  try {
    return new RegExp(withoutLookarounds(compiled.source), flags);
  } catch {
    return new RegExp(compiled.source, flags);
  }
}

/** The look-around openers Symfony's generator strips: `(?=`, `(?!`, `(?<=`, `(?<!`. */
const LOOKAROUND = /^\(\?(?:=|!|<=|<!)/;

/** `source` without its look-around groups (balanced parentheses, escapes skipped; unbalanced: kept). */
function withoutLookarounds(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      out += source.slice(i, i + 2);
      i += 2;
      continue;
    }
    const opener = c === '(' ? LOOKAROUND.exec(source.slice(i, i + 4)) : null;
    const end = opener === null ? -1 : closingParen(source, i);
    if (end === -1) {
      out += c;
      i++;
      continue;
    }
    i = end + 1;
  }
  return out;
}

/** Index of the `)` closing the group opened at `start`, or -1. */
function closingParen(source: string, start: number): number {
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/** PHP's trim() characters: space, tab, LF, CR, NUL, vertical tab. */
const PHP_TRIM = /^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g;

/**
 * A path as Symfony's Route::setPath stores it, `'/'.ltrim(trim($pattern), '/')`: surrounding whitespace
 * dropped and one leading slash, so `//foo` is the route `/foo` (it served only `//foo`, and the URL
 * generated for it, `/%2Ffoo`, matched nothing). A path not starting with `/` is left to be refused.
 */
function normalizePath(path: string): string {
  const trimmed = path.replace(PHP_TRIM, '');
  if (trimmed[0] !== '/') return trimmed;
  let start = 0;
  while (trimmed.charCodeAt(start + 1) === 0x2f) start++;
  return trimmed.slice(start);
}

/** DEFAULT_METHODS, for the per-match test of a route that lists no methods. */
const DEFAULT_METHOD_SET: ReadonlySet<string> = new Set(DEFAULT_METHODS);

/**
 * A route definition without a name, named by its path when it has one: the index alone misleads, as
 * createApp puts the profiler's routes ahead of the application's (debug mode), so its own first route
 * is not #0 here. createApp's option check reports the index in the application's own list.
 */
export function unnamedRoute(index: number, path: unknown): Error {
  return new Error(typeof path === 'string' ? `The route with path ${JSON.stringify(path)} has no name.` : `Route #${index} has no name.`);
}

export class CompiledRouteImpl implements CompiledRoute {
  readonly name: string;
  readonly path: string;
  readonly methods: readonly string[];
  readonly definition: RouteDefinition;
  readonly index: number;
  readonly controller: Controller;
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly options: Readonly<RouteOptions>;
  readonly variables: readonly string[];
  readonly isStatic: boolean;

  /** @internal The exact raw path of a static route. */
  readonly staticPath: string | null;
  /**
   * @internal A static route ending in `/` also serves its path with more trailing slashes (`/dir//`):
   * Symfony's compiled matcher looks static routes up by the rtrimmed path and only checks that the
   * request ends with a slash (CompiledUrlMatcherTrait::doMatch). The router clears it for a route that
   * Symfony would compile as dynamic (see Router), whose regex takes one trailing slash only.
   */
  extraSlashes: boolean;
  /**
   * @internal Symfony keeps this route static: looked up by the path with every trailing slash removed,
   * ahead of the dynamic routes (CompiledUrlMatcherTrait::doMatch). True for a static route until the
   * Router finds an earlier dynamic route able to match it (Symfony then compiles it as a pattern).
   */
  trimmedLookup: boolean;
  /**
   * @internal The route's leading whole path segments, for the router's prefix index: a string is a
   * literal segment, null a segment that is exactly one `:param` (any non-empty segment). Segments after
   * the first group, wildcard or mixed segment are not indexed, nor is a dynamic route's last segment.
   */
  readonly prefixPieces: readonly (string | null)[];
  /** @internal No method restriction. */
  readonly anyMethod: boolean;
  /** @internal GET is allowed (or any method): the route may trigger a trailing-slash redirect. */
  readonly allowsGet: boolean;
  /** @internal Variables outside optional groups (mandatory for generate()). */
  readonly requiredVariables: ReadonlySet<string>;
  /** @internal Wildcard (`*name`) variables. */
  readonly wildcardVariables: ReadonlySet<string>;
  /**
   * @internal Compiled requirements by variable name (only for path variables): `regexp` for matching,
   * `generator` for generate()'s check (see generatorRequirement).
   */
  readonly requirements: ReadonlyMap<string, { regexp: RegExp; generator: RegExp; source: string }>;

  private readonly regexp: RegExp | null;
  private readonly captureNames: string[] = [];
  private readonly captureWildcard: boolean[] = [];
  private readonly captureRequirement: (RegExp | null)[] = [];
  private readonly hasDefaults: boolean;
  private readonly builder: (data: Record<string, string | string[]>) => string;

  constructor(definition: RouteDefinition, index: number) {
    if (definition === null || typeof definition !== 'object') throw new Error(`Route #${index} is not an object.`);
    const { name } = definition;
    if (typeof name !== 'string' || name === '') throw unnamedRoute(index, definition.path);
    const path = typeof definition.path === 'string' ? normalizePath(definition.path) : definition.path;
    if (typeof path !== 'string' || (path[0] !== '/' && path[0] !== '{')) {
      throw new Error(`Invalid path ${JSON.stringify(definition.path)} for route "${name}": a path must start with "/".`);
    }
    for (const key of Object.keys(definition)) {
      // A misplaced option (`requiresLogin: true` beside `path`) would otherwise be ignored, and the route left open.
      if (!DEFINITION_KEYS.has(key)) {
        if (UNSUPPORTED_ROUTE_KEYS.has(key)) throw new Error(unsupportedRouteKey(name, key));
        throw new Error(`Unknown key ${JSON.stringify(key)} in route "${name}": a route has ${[...DEFINITION_KEYS].join(', ')}; route options (requiresLogin, security, isGranted, cache, template, converters…) go under "options".`);
      }
    }
    if (typeof definition.controller !== 'function') throw new Error(`Route "${name}" has no controller function${controllerGiven(definition.controller)}.`);
    this.name = name;
    this.path = path;
    this.definition = definition;
    this.index = index;
    this.controller = definition.controller;
    this.defaults = Object.freeze({ ...(definition.defaults ?? {}) });
    this.hasDefaults = Object.keys(this.defaults).length > 0;
    this.options = definition.options ?? {};

    const methods: string[] = [];
    // One method as a string is a list of one, as Symfony's Route::setMethods takes it ('GET' is not G, E, T).
    const given: unknown = definition.methods;
    for (const m of typeof given === 'string' ? [given] : (definition.methods ?? [])) {
      if (typeof m !== 'string' || m === '') throw new Error(`Invalid method ${JSON.stringify(m)} for route "${name}".`);
      const upper = m.toUpperCase();
      if (!methods.includes(upper)) methods.push(upper);
    }
    this.methods = Object.freeze(methods);
    this.anyMethod = methods.length === 0;
    this.allowsGet = this.anyMethod || methods.includes('GET');

    // `{id}` is a Symfony placeholder, but an optional literal "id" in path-to-regexp 8: refused, not misread.
    const symfonyPlaceholder = SYMFONY_PLACEHOLDER.exec(path);
    if (symfonyPlaceholder) {
      const variable = symfonyPlaceholder[1]!;
      throw new Error(`Invalid path "${path}" for route "${name}": "{${variable}}" is Symfony's placeholder syntax; here a variable is ":${variable}" ("{…}" marks an optional part, e.g. "{/:${variable}}").`);
    }
    let tokens: Token[];
    let regexp: RegExp;
    let keys: Key[];
    try {
      const data = parse(path, { encodePath: encodeLiteral });
      tokens = data.tokens;
      ({ regexp, keys } = pathToRegexp(data, { sensitive: true, trailing: false, end: true }));
      const build = compile(data, { encode: encodeURIComponent });
      this.builder = build as (data: Record<string, string | string[]>) => string;
    } catch (error) {
      throw new Error(`Invalid path "${path}" for route "${name}": ${(error as Error).message}`, { cause: error });
    }

    const variables: string[] = [];
    const wildcards = new Set<string>();
    for (const key of keys) {
      if (key.name === '__proto__') throw new Error(`Invalid path "${path}" for route "${name}": "__proto__" is not a valid parameter name.`);
      if (!variables.includes(key.name)) variables.push(key.name);
      if (key.type === 'wildcard') wildcards.add(key.name);
    }
    // Symfony's RouteCompiler refuses a repeated variable: the first value would be lost without a word.
    // (The keys repeat for optional groups, whose combinations the pattern spells out: count tokens.)
    const repeated = repeatedVariable(tokens);
    if (repeated !== null) throw new Error(`Route pattern "${path}" cannot reference variable name "${repeated}" more than once.`);
    this.variables = Object.freeze(variables);
    this.wildcardVariables = wildcards;
    const required = new Set<string>();
    for (const token of tokens) if (token.type === 'param' || token.type === 'wildcard') required.add(token.name);
    this.requiredVariables = required;

    const requirements = new Map<string, { regexp: RegExp; generator: RegExp; source: string }>();
    for (const [variable, given] of Object.entries(definition.requirements ?? {})) {
      const requirement = typeof given === 'string' ? sanitizeRequirement(name, variable, given) : given;
      const compiled = compileRequirement(name, variable, requirement);
      // A requirement for something that is not a path variable is ignored, as in Symfony.
      if (variables.includes(variable)) {
        requirements.set(variable, { regexp: compiled, generator: generatorRequirement(compiled, typeof requirement === 'string'), source: requirementSource(requirement) });
      }
    }
    this.requirements = requirements;

    this.isStatic = tokens.every((t) => t.type === 'text');
    if (this.isStatic) {
      this.staticPath = tokens.map((t) => (t as { value: string }).value).join('');
      this.extraSlashes = this.staticPath.length > 1 && this.staticPath.endsWith('/');
      this.trimmedLookup = true;
      this.regexp = null;
      this.prefixPieces = Object.freeze(this.staticPath.split('/'));
    } else {
      this.staticPath = null;
      this.extraSlashes = false;
      this.trimmedLookup = false;
      this.regexp = regexp;
      for (const key of keys) {
        this.captureNames.push(key.name);
        this.captureWildcard.push(key.type === 'wildcard');
        this.captureRequirement.push(requirements.get(key.name)?.regexp ?? null);
      }
      this.prefixPieces = Object.freeze(leadingSegments(tokens));
    }
  }

  /**
   * The route accepts `method` (upper-case): listed, HEAD served by a GET route, or — for a route that
   * lists none — one of DEFAULT_METHODS.
   */
  allowsMethod(method: string): boolean {
    if (this.anyMethod) return DEFAULT_METHOD_SET.has(method);
    const methods = this.methods;
    for (let i = 0; i < methods.length; i++) if (methods[i] === method) return true;
    return method === 'HEAD' && this.allowsGet;
  }

  /**
   * Tests a raw path: the params (defaults overlaid with decoded path variables) when it matches,
   * NO_MATCH when the pattern does not match or a value has a malformed escape, REQUIREMENT_FAILED when
   * the pattern matched but a requirement did not.
   */
  probe(path: string): ProbeResult {
    if (this.staticPath !== null) {
      if (path !== this.staticPath && !(this.extraSlashes && onlySlashesAfter(path, this.staticPath))) return NO_MATCH;
      return this.hasDefaults ? { ...this.defaults } : {};
    }
    const m = (this.regexp as RegExp).exec(path);
    if (m === null) return NO_MATCH;
    const params: Record<string, unknown> = this.hasDefaults ? { ...this.defaults } : {};
    let requirementFailed = false;
    for (let i = 1; i < m.length; i++) {
      const raw = m[i];
      if (raw === undefined) continue;
      const k = i - 1;
      let value: string | string[];
      let text: string;
      if (this.captureWildcard[k]) {
        const parts = raw.split('/');
        for (let j = 0; j < parts.length; j++) {
          const decoded = safeDecode(parts[j]!);
          if (decoded === null) return NO_MATCH;
          parts[j] = decoded;
        }
        value = parts;
        text = parts.join('/');
      } else {
        const decoded = safeDecode(raw);
        if (decoded === null) return NO_MATCH;
        // Symfony matches the decoded path, where a variable's default requirement `[^/]++` keeps it to
        // one segment: `..%2F..%2Fetc` is no `{file}`. A requirement of the route's own may allow `/`.
        if (this.captureRequirement[k] === null && decoded !== raw && decoded.includes('/')) return NO_MATCH;
        value = text = decoded;
      }
      const requirement = this.captureRequirement[k];
      // Keep decoding the rest: a malformed escape elsewhere still means "path does not match".
      if (requirement !== null && !requirement.test(text)) requirementFailed = true;
      params[this.captureNames[k]!] = value;
    }
    return requirementFailed ? REQUIREMENT_FAILED : params;
  }

  /** @internal Builds the raw path from already-stringified values (see Router.generate). */
  build(values: Record<string, string | string[]>): string {
    return this.builder(values);
  }
}

/** `path` is `prefix` followed by one or more `/` and nothing else. */
function onlySlashesAfter(path: string, prefix: string): boolean {
  if (path.length <= prefix.length || !path.startsWith(prefix)) return false;
  for (let i = prefix.length; i < path.length; i++) if (path.charCodeAt(i) !== 0x2f) return false;
  return true;
}

/**
 * The whole segments a dynamic path starts with (each one closed by a literal '/'), up to the first
 * group, wildcard, or segment mixing text and parameters. A segment that is one `:param` alone compiles
 * to `([^/]+)` in path-to-regexp 8, so it is recorded as null (matches any non-empty segment).
 */
function leadingSegments(tokens: Token[]): (string | null)[] {
  const pieces: (string | null)[] = [];
  let literal = '';
  let params = 0;
  for (const token of tokens) {
    if (token.type === 'param') {
      params++;
      continue;
    }
    if (token.type !== 'text') break;
    const parts = token.value.split('/');
    for (let p = 0; p < parts.length; p++) {
      if (p > 0) {
        if (params === 0) pieces.push(literal);
        else if (params === 1 && literal === '') pieces.push(null);
        else return pieces;
        literal = '';
        params = 0;
      }
      literal += parts[p];
    }
  }
  return pieces;
}

/** The first variable a path names twice (groups included), or null. */
function repeatedVariable(tokens: readonly Token[], seen = new Set<string>()): string | null {
  for (const token of tokens) {
    if (token.type === 'param' || token.type === 'wildcard') {
      if (seen.has(token.name)) return token.name;
      seen.add(token.name);
    } else if (token.type === 'group') {
      const inner = repeatedVariable(token.tokens, seen);
      if (inner !== null) return inner;
    }
  }
  return null;
}

/** What stood where the controller function belongs, for the error: a Symfony `App\\Controller::method` string most often. */
function controllerGiven(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return `: got the string ${JSON.stringify(value)} (a Symfony controller name; give the function itself, \`controller: (request) => …\`)`;
  return `: got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`;
}

/**
 * Symfony route settings irms-web's router has no equivalent for. Refused where they are written, at
 * the top or under `options` (where an unknown key is kept for the application's listeners): accepted
 * there, a route meant for one host or one condition matched every request.
 */
export const UNSUPPORTED_ROUTE_KEYS: ReadonlySet<string> = new Set(['host', 'condition', 'schemes']);

export function unsupportedRouteKey(routeName: string, key: string): string {
  const instead = key === 'schemes' ? "an accessControl rule's requiresChannel ('https')" : key === 'host' ? 'a kernel.request listener or the controller, reading request.getHost()' : 'a kernel.request listener or the controller';
  return `Route "${routeName}": Symfony's route "${key}" is not supported by irms-web's router; check it in ${instead}.`;
}
