/**
 * The resident set size a profile records, sampled because reading it costs a system call and a file
 * read. Apart from the collector: this probes the runtime (Node, Deno), it builds nothing.
 */

import { now } from '../../../kernel/clock.ts';

/** How long a sampled resident set size is reused: reading it costs a system call and a file read. */
export const RSS_SAMPLE_MS = 100;
let rssValue: number | null = null;
let rssAt = -Infinity;

/** Resident set size when the runtime tells (Node, Deno), else null; sampled at most every RSS_SAMPLE_MS. */
export function residentMemory(): number | null {
  const t = now();
  if (t - rssAt < RSS_SAMPLE_MS) return rssValue;
  rssAt = t;
  rssValue = readResidentMemory();
  return rssValue;
}

function readResidentMemory(): number | null {
  try {
    const proc = (globalThis as { process?: { memoryUsage?: { (): { rss: number }; rss?: () => number } } }).process;
    if (proc?.memoryUsage) return typeof proc.memoryUsage.rss === 'function' ? proc.memoryUsage.rss() : proc.memoryUsage().rss;
    const deno = (globalThis as { Deno?: { memoryUsage?: () => { rss: number } } }).Deno;
    if (deno?.memoryUsage) return deno.memoryUsage().rss;
  } catch {
    // not allowed or not available
  }
  return null;
}
