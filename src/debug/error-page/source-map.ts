import { readTextFile, resolveBeside } from './host-fs.ts';

/**
 * A small source-map (v3) reader: enough to turn a `dist/*.js` stack frame into its `src/*.ts`
 * position when the host did not apply the map itself (Node applies maps only to modules loaded
 * after `process.setSourceMapsEnabled(true)`; other hosts not at all). No dependency; each map is
 * read and decoded once per process (bounded cache, negative results cached too).
 */

export interface OriginalPosition {
  /** Absolute path (or URL) of the original source. */
  source: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  name: string | null;
}

interface RawSourceMap {
  version?: number;
  sources?: unknown;
  sourcesContent?: unknown;
  sourceRoot?: unknown;
  names?: unknown;
  mappings?: unknown;
  sections?: unknown;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) BASE64_VALUE[BASE64.charCodeAt(i)] = i;

/** Segment fields per entry in the decoded arrays: generated column, source, line, column, name (-1 = none). */
const FIELDS = 5;

/**
 * A decoded `mappings` string: every segment in one array, FIELDS numbers each, sorted by generated
 * column within a line (0-based values throughout); generated line k (0-based) holds the segments from
 * `lineEnds[k - 1]` (0 for the first) up to `lineEnds[k]`, counted in numbers.
 */
export interface DecodedMappings {
  segments: Int32Array;
  lineEnds: Int32Array;
  lineCount: number;
}

/**
 * Decodes a `mappings` string, malformed input stopping at the bad segment. One pass, and no object per
 * line: a bundle's map (150 000 characters) decodes in a few ms, and a map of millions of empty lines
 * (`;;;;…`, a hostile or broken file) in well under a second, where a typed array per line took seconds and
 * hundreds of MB.
 */
export function decodeMappingsFlat(mappings: string): DecodedMappings {
  const n = mappings.length;
  let buffer = new Int32Array(1024);
  let lineEnds = new Int32Array(256);
  let lineCount = 0;
  let used = 0;
  let lineStart = 0;
  let column = 0;
  let source = 0;
  let sourceLine = 0;
  let sourceColumn = 0;
  let name = 0;
  let sorted = true;
  let i = 0;

  const endLine = () => {
    if (!sorted) sortSegments(buffer.subarray(lineStart, used));
    if (lineCount === lineEnds.length) {
      const bigger = new Int32Array(lineEnds.length * 2);
      bigger.set(lineEnds);
      lineEnds = bigger;
    }
    lineEnds[lineCount++] = used;
    lineStart = used;
    column = 0;
    sorted = true;
  };

  decode: while (i < n) {
    const c = mappings.charCodeAt(i);
    if (c === 59 /* ; */) {
      endLine();
      i++;
      continue;
    }
    if (c === 44 /* , */) {
      i++;
      continue;
    }
    // One segment: 1, 4 or 5 VLQ values.
    let count = 0;
    let v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0;
    while (i < n) {
      const ch = mappings.charCodeAt(i);
      if (ch === 44 || ch === 59) break;
      let value = 0;
      let shift = 0;
      let digit: number;
      do {
        if (i >= n) break decode;
        const code = mappings.charCodeAt(i++);
        digit = code < 128 ? BASE64_VALUE[code] : -1;
        if (digit < 0 || shift > 25) break decode;
        value |= (digit & 31) << shift;
        shift += 5;
      } while (digit & 32);
      const signed = value & 1 ? -(value >>> 1) : value >>> 1;
      if (count === 0) v0 = signed;
      else if (count === 1) v1 = signed;
      else if (count === 2) v2 = signed;
      else if (count === 3) v3 = signed;
      else if (count === 4) v4 = signed;
      count++;
    }
    if (count === 0) continue;
    if (used + FIELDS > buffer.length) {
      const bigger = new Int32Array(buffer.length * 2);
      bigger.set(buffer);
      buffer = bigger;
    }
    const previousColumn = used > lineStart ? buffer[used - FIELDS] : -1;
    column += v0;
    if (column < previousColumn) sorted = false;
    buffer[used] = column;
    if (count >= 4) {
      source += v1;
      sourceLine += v2;
      sourceColumn += v3;
      if (count >= 5) name += v4;
      buffer[used + 1] = source;
      buffer[used + 2] = sourceLine;
      buffer[used + 3] = sourceColumn;
      buffer[used + 4] = count >= 5 ? name : -1;
    } else {
      buffer[used + 1] = buffer[used + 2] = buffer[used + 3] = buffer[used + 4] = -1;
    }
    used += FIELDS;
  }
  endLine();
  // Trimmed to what was used: a cached map keeps no doubling slack.
  return { segments: buffer.slice(0, used), lineEnds: lineEnds.slice(0, lineCount), lineCount };
}

/** decodeMappingsFlat, one array of segments per generated line (views of one buffer). */
export function decodeMappings(mappings: string): Int32Array[] {
  const { segments, lineEnds, lineCount } = decodeMappingsFlat(mappings);
  const lines: Int32Array[] = [];
  for (let k = 0; k < lineCount; k++) lines.push(segments.subarray(k === 0 ? 0 : lineEnds[k - 1], lineEnds[k]));
  return lines;
}

/** Segments are normally sorted already; a line that is not gets them sorted by generated column. */
function sortSegments(line: Int32Array): void {
  const segs: number[][] = [];
  for (let k = 0; k + FIELDS <= line.length; k += FIELDS) segs.push(Array.from(line.subarray(k, k + FIELDS)));
  segs.sort((a, b) => a[0] - b[0]);
  segs.forEach((seg, k) => line.set(seg, k * FIELDS));
}

/** One decoded source map. */
export class SourceMap {
  private readonly mappings: DecodedMappings;
  readonly sources: string[];
  private readonly contents: (string | null)[];
  private readonly names: string[];

  /** `mapFile` is where the map lives; relative `sources` resolve against it (with `sourceRoot`). */
  constructor(raw: RawSourceMap, mapFile: string) {
    const root = typeof raw.sourceRoot === 'string' ? raw.sourceRoot : '';
    const sources = Array.isArray(raw.sources) ? raw.sources : [];
    this.sources = sources.map((s) => {
      const rel = typeof s === 'string' ? s : '';
      const joined = root ? (root.endsWith('/') ? root : root + '/') + rel : rel;
      return resolveBeside(mapFile, joined);
    });
    const contents = Array.isArray(raw.sourcesContent) ? raw.sourcesContent : [];
    this.contents = this.sources.map((_, k) => (typeof contents[k] === 'string' ? (contents[k] as string) : null));
    this.names = Array.isArray(raw.names) ? raw.names.map((x) => (typeof x === 'string' ? x : '')) : [];
    this.mappings = decodeMappingsFlat(typeof raw.mappings === 'string' ? raw.mappings : '');
  }

  /** The embedded text of an original source (`sourcesContent`), by its resolved path. */
  contentOf(source: string): string | null {
    const k = this.sources.indexOf(source);
    return k >= 0 ? this.contents[k] : null;
  }

  /** The original position of a generated 1-based line and column (as V8 prints them), or null. */
  originalPositionFor(line: number, column: number): OriginalPosition | null {
    const { segments, lineEnds, lineCount } = this.mappings;
    if (!(line >= 1 && line <= lineCount)) return null;
    const segs = segments.subarray(line === 1 ? 0 : lineEnds[line - 2], lineEnds[line - 1]);
    if (segs.length === 0) return null;
    const col = column - 1;
    // Last segment with generated column <= col.
    let lo = 0;
    let hi = segs.length / FIELDS - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (segs[mid * FIELDS] <= col) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) found = 0;
    const at = found * FIELDS;
    const src = segs[at + 1];
    if (src < 0 || src >= this.sources.length) return null;
    const nameIndex = segs[at + 4];
    return {
      source: this.sources[src],
      line: segs[at + 2] + 1,
      column: segs[at + 3] + 1,
      name: nameIndex >= 0 ? (this.names[nameIndex] ?? null) : null,
    };
  }
}

const MAX_CACHED_MAPS = 32;
/** Generated file → its decoded map, or null when it has none (cached as well). */
const cache = new Map<string, SourceMap | null>();

/** Forgets every cached map (tests; a server that rebuilt its bundle). */
export function clearSourceMapCache(): void {
  cache.clear();
}

/** The source map of a generated JavaScript file: `<file>.map`, or the file's `sourceMappingURL` comment. */
export function sourceMapFor(file: string): SourceMap | null {
  const hit = cache.get(file);
  if (hit !== undefined) {
    cache.delete(file);
    cache.set(file, hit); // most recently used last
    return hit;
  }
  const map = loadSourceMap(file);
  if (cache.size >= MAX_CACHED_MAPS) cache.delete(cache.keys().next().value as string);
  cache.set(file, map);
  return map;
}

const SOURCE_MAPPING_URL = /^\/[/*][#@]\s*sourceMappingURL=([^\s'"*]+)\s*(?:\*\/)?\s*$/;

function loadSourceMap(file: string): SourceMap | null {
  try {
    let mapFile = `${file}.map`;
    let text = readTextFile(mapFile);
    if (text === null) {
      const code = readTextFile(file);
      if (code === null) return null;
      const m = sourceMappingComment(lastLineOf(code));
      if (!m) return null;
      const url = m[1];
      if (url.startsWith('data:')) {
        text = decodeDataUrl(url);
        mapFile = file;
      } else {
        mapFile = resolveBeside(file, decodeURIComponentSafe(url));
        text = readTextFile(mapFile);
      }
      if (text === null) return null;
    }
    const raw = JSON.parse(text) as RawSourceMap;
    if (!raw || typeof raw !== 'object' || raw.sections !== undefined) return null; // index maps are not used by esbuild
    return new SourceMap(raw, mapFile);
  } catch {
    return null;
  }
}

/**
 * The last line of a file that is not blank, however long: an inline map (`sourcemap: 'inline'`) is a
 * data: URL of a third more than its map, hundreds of KB for any real bundle.
 */
function lastLineOf(code: string): string {
  let end = code.length;
  while (end > 0 && /\s/.test(code[end - 1]!)) end--;
  return code.slice(code.lastIndexOf('\n', end - 1) + 1, end);
}

/** The `//# sourceMappingURL=` comment that ends a line, read from its last `sourceMappingURL=` (one pass). */
function sourceMappingComment(line: string): RegExpExecArray | null {
  const at = line.lastIndexOf('sourceMappingURL=');
  if (at < 0) return null;
  let start = at;
  while (start > 0 && /\s/.test(line[start - 1]!)) start--;
  return start < 3 ? null : SOURCE_MAPPING_URL.exec(line.slice(start - 3));
}

function decodeDataUrl(url: string): string | null {
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const meta = url.slice(5, comma);
  const data = url.slice(comma + 1);
  if (!meta.endsWith(';base64')) return decodeURIComponentSafe(data);
  const atobFn = (globalThis as { atob?: (s: string) => string }).atob;
  if (!atobFn) return null;
  const binary = atobFn(data);
  const bytes = new Uint8Array(binary.length);
  for (let k = 0; k < binary.length; k++) bytes[k] = binary.charCodeAt(k);
  return new TextDecoder().decode(bytes);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
