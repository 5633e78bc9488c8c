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
  /** A copy of every entry, as an object without prototype. */
  all(): Record<string, V> {
    const out: Record<string, V> = Object.create(null);
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
}

/** Where a HeaderBag reads from: the host's request (a RequestSource fits). */
export interface HeaderSource {
  header(name: string): string | null;
  headers(): Iterable<[string, string]>;
  headerLines?(): string[];
}

/** Request headers: case-insensitive, read lazily from the host's request, writable by listeners. */
export class HeaderBag {
  private overrides: Map<string, string | null> | null = null;
  constructor(private readonly source: HeaderSource) {}

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (this.overrides?.has(key)) return this.overrides.get(key)!;
    return this.source.header(key);
  }
  has(name: string): boolean {
    return this.get(name) !== null;
  }
  set(name: string, value: string): void {
    (this.overrides ??= new Map()).set(name.toLowerCase(), value);
  }
  remove(name: string): void {
    (this.overrides ??= new Map()).set(name.toLowerCase(), null);
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
    const out: Record<string, string> = Object.create(null);
    for (const [k, v] of this.source.headers()) out[k.toLowerCase()] = v;
    if (this.overrides) for (const [k, v] of this.overrides) if (v === null) delete out[k]; else out[k] = v;
    return out;
  }
}
