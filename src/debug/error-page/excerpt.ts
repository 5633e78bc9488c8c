import { hasBeyondLatin1, oneByteCopy } from './escape.ts';
import { readTextFile } from './host-fs.ts';

/** One line of a code excerpt. */
export interface ExcerptLine {
  /** 1-based line number. */
  number: number;
  /** The line's text, cut to MAX_LINE_CHARS. */
  text: string;
  /** The line the frame points at. */
  current: boolean;
}

/** Lines shown before and after the frame's line. */
export const EXCERPT_RADIUS = 5;
/** Longer lines are cut (a minified bundle has one huge line). */
export const MAX_LINE_CHARS = 300;
/** Source files larger than this are not excerpted. */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
const MAX_CACHED_FILES = 64;

/** File → its lines, or null when unreadable (cached too, so a missing file costs one stat). */
const cache = new Map<string, string[] | null>();

export function clearExcerptCache(): void {
  cache.clear();
}

function linesOf(file: string, fallbackContent: string | null): string[] | null {
  let lines = cache.get(file);
  if (lines === undefined) {
    const text = readTextFile(file, MAX_SOURCE_BYTES);
    lines = text === null ? null : text.split(/\r\n|\r|\n/);
    if (cache.size >= MAX_CACHED_FILES) cache.delete(cache.keys().next().value as string);
    cache.set(file, lines);
  }
  if (lines === null && fallbackContent !== null && fallbackContent.length <= MAX_SOURCE_BYTES) {
    lines = fallbackContent.split(/\r\n|\r|\n/);
    cache.set(file, lines);
  }
  return lines;
}

/**
 * The lines around `line` of `file` (±EXCERPT_RADIUS), or null when the source cannot be read: no
 * file system, a missing file, or a URL. `fallbackContent` is a source map's embedded copy.
 */
export function codeExcerpt(file: string, line: number, fallbackContent: string | null = null): ExcerptLine[] | null {
  if (!file || line < 1 || file.startsWith('node:') || /^[a-z]+:\/\//i.test(file) && !file.startsWith('file://')) return null;
  const lines = linesOf(file.startsWith('file://') ? fileUrlToPath(file) : file, fallbackContent);
  if (!lines || line > lines.length) return null;
  const from = Math.max(1, line - EXCERPT_RADIUS);
  const to = Math.min(lines.length, line + EXCERPT_RADIUS);
  const out: ExcerptLine[] = [];
  for (let n = from; n <= to; n++) {
    const raw = lines[n - 1];
    out.push({ number: n, text: raw.length > MAX_LINE_CHARS ? raw.slice(0, MAX_LINE_CHARS) + '…' : latin1Copy(raw), current: n === line });
  }
  return out;
}

/**
 * The same line, stored one byte per character when it fits: a line cut from a file with any
 * character beyond U+00FF (a dash in a comment) is stored two bytes per character like the whole
 * file. (A line that does have one is made one-byte by the highlighter, once escaped: escape.ts.)
 */
function latin1Copy(line: string): string {
  return hasBeyondLatin1(line) ? line : oneByteCopy(line);
}

function fileUrlToPath(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url.slice(7);
  }
}
