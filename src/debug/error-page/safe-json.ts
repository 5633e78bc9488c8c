/**
 * JSON views of arbitrary values for the error page (log contexts, error properties, thrown values).
 * Nothing here may throw: getters that throw, Proxies, cycles, BigInts, huge or deep structures all
 * come out as bounded, JSON-safe data.
 */

export interface SafeJsonOptions {
  /** Deeper values print as `[object Class]`. */
  maxDepth?: number;
  /** Keys per object / items per array. */
  maxEntries?: number;
  /** Longer strings are cut. */
  maxString?: number;
  /** Values visited in total; past it everything is `[…]`. */
  budget?: number;
  /** Renders an Error value (default: `[object] (Class: message)`). */
  describeError?: (error: Error) => string;
}

const DEFAULTS = { maxDepth: 6, maxEntries: 100, maxString: 4000, budget: 2000 };

/**
 * An error's message, never throwing: a getter that throws gives a placeholder, a message that is no
 * string its description. Here, with no imports, so that the profile's masking (which the error page
 * imports) reads errors the same way as the page without importing the page.
 */
export function messageOf(error: unknown): string {
  try {
    const m = (error as { message?: unknown }).message;
    return typeof m === 'string' ? m : describeValue(m);
  } catch {
    return '[unreadable message]';
  }
}

/** A printable description of anything, never throwing. */
export function describeValue(value: unknown): string {
  try {
    if (typeof value === 'string') return value;
    if (typeof value === 'symbol') return value.toString();
    if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
    if (value !== null && typeof value === 'object') return `[object ${className(value)}]`;
    return String(value);
  } catch {
    return '[unprintable value]';
  }
}

function className(value: object): string {
  try {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === 'string' && name ? name : 'Object';
  } catch {
    return 'Object';
  }
}

function errorMessage(error: unknown): string {
  try {
    const m = (error as { message?: unknown }).message;
    return typeof m === 'string' ? m : describeValue(m);
  } catch {
    return '[unreadable message]';
  }
}

/** A JSON-safe copy of `value`, bounded in depth, breadth, string length and total size. */
export function toSafeJson(value: unknown, options: SafeJsonOptions = {}): unknown {
  const opts = { ...DEFAULTS, ...options };
  let budget = opts.budget;
  const seen = new Set<object>();
  const cut = (s: string) => (s.length > opts.maxString ? `${s.slice(0, opts.maxString)}… (${s.length - opts.maxString} more characters)` : s);

  const walk = (v: unknown, depth: number): unknown => {
    if (--budget < 0) return '[…]';
    switch (typeof v) {
      case 'string':
        return cut(v);
      case 'number':
        return Number.isFinite(v) ? v : String(v);
      case 'boolean':
        return v;
      case 'bigint':
        return `${v.toString()}n`;
      case 'undefined':
        return '[undefined]';
      case 'symbol':
      case 'function':
        return describeValue(v);
    }
    if (v === null) return null;
    const obj = v as object;
    try {
      if (obj instanceof Error) {
        return cut(opts.describeError ? opts.describeError(obj) : `[object] (${className(obj)}: ${errorMessage(obj)})`);
      }
      if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
      if (obj instanceof RegExp) return obj.toString();
      if (seen.has(obj)) return '[circular]';
      if (depth >= opts.maxDepth) return `[object ${className(obj)}]`;
      seen.add(obj);
      try {
        if (obj instanceof Map) {
          const out: Record<string, unknown> = {};
          let n = 0;
          for (const [k, item] of obj) {
            if (n++ >= opts.maxEntries) {
              out['…'] = `${obj.size - opts.maxEntries} more entries`;
              break;
            }
            out[typeof k === 'string' ? k : describeValue(k)] = walk(item, depth + 1);
          }
          return { [`[Map(${obj.size})]`]: out };
        }
        if (obj instanceof Set) {
          return { [`[Set(${obj.size})]`]: walk([...obj].slice(0, opts.maxEntries), depth + 1) };
        }
        if (ArrayBuffer.isView(obj)) return `[${className(obj)}(${(obj as ArrayBufferView).byteLength} bytes)]`;
        if (Array.isArray(obj)) {
          const out: unknown[] = [];
          const n = Math.min(obj.length, opts.maxEntries);
          for (let k = 0; k < n; k++) out.push(readAndWalk(obj, k, depth));
          if (obj.length > n) out.push(`… ${obj.length - n} more items`);
          return out;
        }
        const out: Record<string, unknown> = {};
        const keys = Object.keys(obj);
        const n = Math.min(keys.length, opts.maxEntries);
        for (let k = 0; k < n; k++) out[keys[k]] = readAndWalk(obj, keys[k], depth);
        if (keys.length > n) out['…'] = `${keys.length - n} more keys`;
        return out;
      } finally {
        seen.delete(obj);
      }
    } catch (error) {
      return `[unreadable: ${describeValue(error instanceof Error ? errorMessage(error) : error)}]`;
    }
  };

  const readAndWalk = (obj: object, key: string | number, depth: number): unknown => {
    let item: unknown;
    try {
      item = (obj as Record<string | number, unknown>)[key];
    } catch (error) {
      return `[unreadable: ${error instanceof Error ? errorMessage(error) : describeValue(error)}]`;
    }
    return walk(item, depth + 1);
  };

  return walk(value, 0);
}

/** Pretty-printed (2-space) JSON of `toSafeJson(value)`, cut at `maxChars`. */
export function prettyJson(value: unknown, maxChars = 20_000, options?: SafeJsonOptions): string {
  let text: string;
  try {
    text = JSON.stringify(toSafeJson(value, options), null, 2) ?? 'null';
  } catch {
    text = '"[unserializable]"';
  }
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n… (truncated, ${text.length - maxChars} more characters)` : text;
}

/** What is shown in place of a value whose getter (or Proxy trap) threw: logs, profiles and the debug page alike. */
export function unreadableText(error: unknown): string {
  return `[unreadable: ${error instanceof Error ? messageOf(error) : describeValue(error)}]`;
}
