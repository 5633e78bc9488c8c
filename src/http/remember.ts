/**
 * Stores `key → value` in a cache of at most `max` entries, emptying it when full: a burst of distinct
 * keys (a scanner's Hosts or paths) then costs one refill, where a cache that stopped taking keys once
 * full stayed closed to the keys that repeat for the rest of the process. O(1), no order kept.
 */
export function remember<K, V>(cache: Map<K, V>, max: number, key: K, value: V): void {
  if (cache.size >= max) cache.clear();
  cache.set(key, value);
}
