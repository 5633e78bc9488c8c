/**
 * The one clock of a request's timings (its start, each listener call, the profile's total): milliseconds
 * with sub-millisecond precision where the host has `performance` (Node, Deno, browsers, workers), else
 * `Date.now()`. Shared so that every duration a profile shows is measured on the same clock.
 */
export const now: () => number = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();
