import { meantName } from '../app/near-names.ts';

/** A value as an option's error quotes it: a string in quotes, so that a port given as "8000" shows as one. */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return typeof value === 'function' ? 'a function' : String(value);
}

/**
 * The options object a JavaScript caller gave `caller()` (serve, denoServeHandler), refused with a
 * TypeError when it is no object or names an option `caller` does not have, with the nearest known
 * name: a misspelt option would otherwise be ignored without a word.
 */
export function knownOptions(caller: string, options: unknown, names: readonly string[], aliases?: ReadonlyMap<string, string>): Record<string, unknown> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError(`${caller}() expects an options object, got ${shownValue(options)}.`);
  const given = options as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (names.includes(name)) continue;
    const meant = meantName(name, names, aliases);
    throw new TypeError(`Unknown ${caller} option "${name}"${meant !== null ? ` (did you mean "${meant}"?)` : `; it takes ${names.map((n) => `"${n}"`).join(', ')}`}.`);
  }
  return given;
}
