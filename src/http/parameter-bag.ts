/**
 * Symfony's ParameterBag: a string-keyed bag over an object without prototype, so keys such as
 * `__proto__` or `constructor` are plain keys and never reach Object.prototype.
 */
export class ParameterBag<V = unknown> {
  protected data: Record<string, V>;

  constructor(initial?: Record<string, V> | Iterable<[string, V]>) {
    this.data = Object.create(null);
    if (initial) this.add(initial);
  }

  get<T = V>(key: string, fallback?: T): V | T | undefined {
    return key in this.data ? this.data[key] : fallback;
  }
  has(key: string): boolean {
    return key in this.data;
  }
  set(key: string, value: V): void {
    this.data[key] = value;
  }
  remove(key: string): void {
    delete this.data[key];
  }
  /** A copy of every entry. */
  all(): Record<string, V> {
    return Object.assign(Object.create(null), this.data);
  }
  keys(): string[] {
    return Object.keys(this.data);
  }
  get size(): number {
    return Object.keys(this.data).length;
  }
  replace(values: Record<string, V> | Iterable<[string, V]>): void {
    this.data = Object.create(null);
    this.add(values);
  }
  add(values: Record<string, V> | Iterable<[string, V]>): void {
    if (Symbol.iterator in Object(values)) {
      for (const [k, v] of values as Iterable<[string, V]>) this.data[k] = v;
    } else {
      for (const k of Object.keys(values)) this.data[k] = (values as Record<string, V>)[k];
    }
  }
  getString(key: string, fallback = ''): string {
    const v = this.data[key];
    return typeof v === 'string' ? v : v === undefined || v === null || typeof v === 'object' ? fallback : String(v);
  }
}

/** Request headers: case-insensitive, read lazily from the host's request, writable by listeners. */
export class HeaderBag {
  private overrides: Map<string, string | null> | null = null;
  constructor(private readonly read: (name: string) => string | null, private readonly list: () => Iterable<[string, string]>) {}

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (this.overrides?.has(key)) return this.overrides.get(key)!;
    return this.read(key);
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
  all(): Record<string, string> {
    const out: Record<string, string> = Object.create(null);
    for (const [k, v] of this.list()) out[k.toLowerCase()] = v;
    if (this.overrides) for (const [k, v] of this.overrides) if (v === null) delete out[k]; else out[k] = v;
    return out;
  }
}
