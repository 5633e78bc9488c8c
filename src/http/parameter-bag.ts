import { BadRequestException } from '../kernel/exceptions.ts';
import { nullRecord } from './null-record.ts';

/**
 * Symfony's ParameterBag over a Map: keys such as `__proto__` or `constructor` are plain keys and never
 * reach Object.prototype, and the many attribute writes of a request stay cheap. The Map is made on
 * the first write: most bags of most requests (query, body, cookies) stay empty.
 */
export class ParameterBag<V = unknown> {
  protected data: Map<string, V> | null = null;

  constructor(initial?: Record<string, V> | Iterable<[string, V]>) {
    if (initial) this.add(initial);
  }

  get(key: string): V | undefined;
  get<T>(key: string, fallback: T): V | T;
  get<T = V>(key: string, fallback?: T): V | T | undefined {
    const data = this.data;
    if (data === null) return fallback;
    const value = data.get(key);
    return value !== undefined || data.has(key) ? value : fallback;
  }
  has(key: string): boolean {
    return this.data !== null && this.data.has(key);
  }
  set(key: string, value: V): void {
    (this.data ??= new Map()).set(key, value);
  }
  remove(key: string): void {
    this.data?.delete(key);
  }
  /**
   * A copy of every entry, as an object without prototype; with a key, Symfony 5.4's ParameterBag::all($key):
   * that parameter when it is an array (a list or nested parameters, a copy), `[]` when it is absent or
   * null, and a BadRequestException (a 400) for anything else, so `query.all('tags')` on `?tags=x` is
   * refused as in Symfony rather than answering every parameter.
   */
  all(): Record<string, V>;
  all(key: string | null | undefined): unknown[] | Record<string, unknown>;
  all(key?: string | null): Record<string, V> | unknown[] | Record<string, unknown> {
    if (key !== undefined && key !== null) return arrayParameter(key, this.data?.get(key));
    const out = nullRecord<V>();
    if (this.data) for (const [k, v] of this.data) out[k] = v;
    return out;
  }
  keys(): string[] {
    return this.data ? [...this.data.keys()] : [];
  }
  get size(): number {
    return this.data ? this.data.size : 0;
  }
  replace(values: Record<string, V> | Iterable<[string, V]>): void {
    this.data = null;
    this.add(values);
  }
  add(values: Record<string, V> | Iterable<[string, V]>): void {
    if (Symbol.iterator in Object(values)) {
      for (const [k, v] of values as Iterable<[string, V]>) this.set(k, v);
    } else {
      for (const k of Object.keys(values)) this.set(k, (values as Record<string, V>)[k]);
    }
  }
  getString(key: string, fallback = ''): string {
    const v = this.data?.get(key);
    return typeof v === 'string' ? v : v === undefined || v === null || typeof v === 'object' ? fallback : String(v);
  }
  /** ParameterBag::getInt: PHP's `(int)` of the value (`"12abc"` → 12, `"1e3"` → 1000, `"abc"` → 0). */
  getInt(key: string, fallback = 0): number {
    return phpInt(this.get(key, fallback));
  }
  /** ParameterBag::getBoolean: FILTER_VALIDATE_BOOLEAN — `1`, `true`, `on`, `yes` (any case, trimmed) are true, all else false. */
  getBoolean(key: string, fallback = false): boolean {
    const v = this.get(key, fallback);
    if (typeof v === 'boolean') return v;
    if (typeof v !== 'string' && typeof v !== 'number') return false;
    return TRUE_WORDS.has(filterTrim(String(v)).toLowerCase());
  }
  /** ParameterBag::getAlpha: the ASCII letters of the value (PCRE's `[:alpha:]`). */
  getAlpha(key: string, fallback = ''): string {
    return phpString(this.get(key, fallback)).replace(/[^A-Za-z]/g, '');
  }
  /** ParameterBag::getAlnum: the ASCII letters and digits of the value. */
  getAlnum(key: string, fallback = ''): string {
    return phpString(this.get(key, fallback)).replace(/[^A-Za-z0-9]/g, '');
  }
  /** ParameterBag::getDigits: the digits of the value (FILTER_SANITIZE_NUMBER_INT, then `+`/`-` removed). */
  getDigits(key: string, fallback = ''): string {
    return phpString(this.get(key, fallback)).replace(/[^0-9]/g, '');
  }
  /** ParameterBag::count. */
  count(): number {
    return this.size;
  }
}

/** ParameterBag::all($key)'s value: `$this->parameters[$key] ?? []`, which must be a PHP array. */
function arrayParameter(key: string, value: unknown): unknown[] | Record<string, unknown> {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.slice();
  if (typeof value === 'object' && isPlainRecord(value)) return Object.assign(nullRecord(), value);
  throw new BadRequestException(`Unexpected value for parameter "${key}": expecting "array", got "${debugType(value)}".`);
}

/** A PHP array's counterpart: nested parameters (no prototype) or a JSON object. */
function isPlainRecord(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

/** PHP's get_debug_type of a value that is no array. */
function debugType(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
    case 'bigint':
      return Number.isInteger(value) || typeof value === 'bigint' ? 'int' : 'float';
    case 'object':
      return (value as object).constructor?.name || 'object';
    default:
      return typeof value;
  }
}

const TRUE_WORDS = new Set(['1', 'true', 'on', 'yes']);
/**
 * What php_filter_boolean trims (PHP_FILTER_TRIM_DEFAULT, ext/filter/logical_filters.c): space, tab, CR,
 * LF and VT only. String.prototype.trim also drops a form feed, a no-break space and other Unicode
 * spaces, so `?admin=%C2%A0yes` was true where Symfony's getBoolean says false.
 */
const FILTER_BLANKS = /^[ \t\r\n\v]+|[ \t\r\n\v]+$/g;

function filterTrim(s: string): string {
  return s.replace(FILTER_BLANKS, '');
}
/** The numeric prefix PHP's `(int)` cast reads from a string (leading whitespace allowed, exponent included). */
const NUMERIC_PREFIX = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;

/** 2^63: PHP_INT_MAX + 1 and -PHP_INT_MIN, which a JavaScript number writes as the same value as PHP_INT_MAX. */
const INT64_LIMIT = 2 ** 63;

/** PHP's `(int)`: numbers truncated (INF, NAN → 0), a string's numeric prefix, booleans 0/1, arrays 0 when empty. */
function phpInt(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) || 0 : 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const prefix = NUMERIC_PREFIX.exec(v);
    if (prefix === null) return 0;
    // zval_get_long casts a numeric string's value with zend_dval_to_lval_cap: out of range it saturates
    // at PHP_INT_MAX / PHP_INT_MIN (here as the nearest numbers, ±2^63), where Math.trunc kept 1e100.
    const n = Number(prefix[0].trim());
    return Number.isFinite(n) && Math.abs(n) >= INT64_LIMIT ? Math.sign(n) * INT64_LIMIT : phpInt(n);
  }
  if (Array.isArray(v)) return v.length ? 1 : 0;
  if (v === null || typeof v !== 'object') return 0;
  // A JSON object or nested parameters is a PHP array there: `(int) []` is 0, so `{"page": {}}` reads 0.
  const proto = Object.getPrototypeOf(v);
  return (proto === null || proto === Object.prototype) && Object.keys(v).length === 0 ? 0 : 1;
}

/** PHP's string conversion of a scalar (`true` → `1`, `false`/null → ''); anything else is ''. */
function phpString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? '1' : '';
  return '';
}

/** Where a HeaderBag reads from: the host's request (a RequestSource fits). */
export interface HeaderSource {
  header(name: string): string | null;
  headers(): Iterable<[string, string]>;
  headerLines?(): string[];
}

/**
 * HeaderBag's key: lower-case with `_` as `-` (its `strtr($key, '_ABC…Z', '-abc…z')`), so `CONTENT_TYPE`
 * and `X_FORWARDED_FOR`, as Symfony code writes them, name the headers. The replace runs only for a name
 * with an underscore: listeners ask for headers on every request.
 */
function headerName(name: string): string {
  const key = name.toLowerCase();
  return key.indexOf('_') < 0 ? key : key.replace(/_/g, '-');
}

/** Request headers: case-insensitive, read lazily from the host's request, writable by listeners. */
export class HeaderBag {
  private overrides: Map<string, string | null> | null = null;
  /** Counts set/remove calls, so the request knows when a host it remembered may have changed (getHost). */
  private changes = 0;
  constructor(private readonly source: HeaderSource) {}

  /** How many times a listener changed a header (0: the headers as sent). */
  get version(): number {
    return this.changes;
  }

  /** HeaderBag::get: the value, or `fallback` (null unless given) when the header is absent. */
  get(name: string): string | null;
  get<T>(name: string, fallback: T): string | T;
  get<T>(name: string, fallback: T | null = null): string | T | null {
    const key = headerName(name);
    const value = this.overrides?.has(key) ? this.overrides.get(key)! : this.source.header(key);
    return value === null ? fallback : value;
  }
  has(name: string): boolean {
    return this.get(name) !== null;
  }
  set(name: string, value: string): void {
    (this.overrides ??= new Map()).set(headerName(name), value);
    this.changes++;
  }
  remove(name: string): void {
    (this.overrides ??= new Map()).set(headerName(name), null);
    this.changes++;
  }
  /**
   * Every header as name, value, name, value… (lower-case names, listeners' changes applied): what
   * `all()` holds, as a list that costs no iterator and no dictionary object.
   */
  lines(): string[] {
    if (this.overrides === null && this.source.headerLines) return this.source.headerLines();
    const all = this.all();
    const out: string[] = [];
    for (const name in all) out.push(name, all[name]!);
    return out;
  }
  all(): Record<string, string> {
    const out = nullRecord<string>();
    for (const [k, v] of this.source.headers()) out[k.toLowerCase()] = v;
    if (this.overrides) for (const [k, v] of this.overrides) if (v === null) delete out[k]; else out[k] = v;
    return out;
  }
}
