import { ANNOTATION_ATTRIBUTES } from '../listeners/controller-listener.ts';
import type { RouteDefinition } from '../routing/route.ts';

/** The route options the built-in listeners read: LoginListener's, and the ones ControllerListener turns into attributes. */
const KNOWN_OPTIONS: readonly string[] = ['requiresLogin', ...Object.keys(ANNOTATION_ATTRIBUTES)];

/**
 * Refuses a route option that is a near miss of a known one (`requireLogin`, `isgranted`, `converter`):
 * ignored, it would leave a route open or uncached without a word. Other unknown keys are the
 * application's own options, for its listeners (`_route_options`), and stay allowed.
 */
export function assertOptionNames(route: RouteDefinition): void {
  const options = route.options;
  if (!options || typeof options !== 'object') return;
  for (const key of Object.keys(options)) {
    if (KNOWN_OPTIONS.includes(key)) continue;
    const meant = KNOWN_OPTIONS.find((known) => nearMiss(key, known));
    if (meant !== undefined) throw new Error(`Unknown option "${key}" in route "${route.name}": did you mean "${meant}"?`);
  }
}

/** Same letters ignoring case, or at most two edits apart (insertions, deletions, substitutions). */
function nearMiss(key: string, known: string): boolean {
  const a = key.toLowerCase();
  const b = known.toLowerCase();
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 2) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]! <= 2;
}
