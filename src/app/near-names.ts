/** Levenshtein distance (insertions, deletions, substitutions): how misspelt names are matched to known ones. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/** The known name closest to a misspelt one (a few edits away, case aside), or null. */
export function nearestName(name: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(name.length / 4)) + 1;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The name an unknown option most likely means. Spellings that no edit distance would find come
 * first (`aliases`, keyed by the name lower-cased without `_` and `-`: the variable `APP_SECRET` is
 * the option `secret`); then the nearest known name, so that `BODY_LIMIT` and `body_limit` find
 * `bodyLimit` as `bodylimit` does.
 */
export function meantName(name: string, known: readonly string[], aliases: ReadonlyMap<string, string> = new Map()): string | null {
  const squashed = name.replace(/[_-]/g, '').toLowerCase();
  return aliases.get(squashed) ?? nearestName(squashed, known);
}
