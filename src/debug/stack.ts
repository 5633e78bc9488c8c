/**
 * Stack frames parsed from V8 stack strings (Node and Deno), resolved to the original sources: a frame
 * in a bundle (`dist/*.js`) that the host did not map is mapped here through the bundle's source map,
 * so pages and logs point at `src/*.ts`.
 */
import { codeExcerpt, type ExcerptLine } from './error-page/excerpt.ts';
import { relativeTo, workingDirectory } from './error-page/host-fs.ts';
import { messageOf } from './error-page/safe-json.ts';
import { sourceMapFor } from './error-page/source-map.ts';

export interface StackFrame {
  /** `Class.method`, `functionName`, `new Class`, or '' for top-level code. */
  fn: string;
  file: string;
  line: number;
  column: number;
}

/** A frame after source maps, ready to show (shared through a cache: treat as read-only). */
export interface ResolvedFrame extends StackFrame {
  /** Absolute path (or URL, or `node:` id) of the original source. */
  file: string;
  /** `file` relative to the project root when inside it. */
  path: string;
  /** node_modules, `node:internal`, Deno's `ext:` and other host code: shown collapsed. */
  vendor: boolean;
  /** Where the frame pointed before we applied a source map ourselves (null when we did not). */
  generated: { file: string; line: number; column: number } | null;
}

/** A frame line's start: `at ` after any whitespace. */
const FRAME_START = /^\s*at /;
/** Characters `.` does not match: a frame's parts never hold one. */
const LINE_TERMINATOR = /[\r\u2028\u2029]/;
/** Frames beyond this are ignored (V8 records 10 by default; Error.stackTraceLimit may raise it). */
export const MAX_FRAMES = 100;

export function parseStack(stack: string | undefined): StackFrame[] {
  if (!stack) return [];
  const frames: StackFrame[] = [];
  for (const line of stack.split('\n')) {
    if (frames.length >= MAX_FRAMES) break;
    const frame = parseFrame(line);
    if (frame) frames.push(frame);
  }
  return frames;
}

/**
 * One V8 frame line, as the patterns `^\s*at (?:async )?(.*?) \((.*):(\d+):(\d+)\)$` (named) and
 * `^\s*at (?:async )?(.*):(\d+):(\d+)$` (anonymous) read it, in one pass: those patterns backtrack
 * over every ` (` of a line, so a long line of them (a stack text that quotes a client's input, a
 * `Caused by:` chain written by hand) cost seconds per line, quadratically.
 */
export function parseFrame(line: string): StackFrame | null {
  // The message lines (all of a production error's stack) are not frames: no pattern run for them.
  if (line.indexOf('at ') < 0) return null;
  const start = FRAME_START.exec(line);
  if (start === null) return null;
  const body = line.slice(start[0].length);
  if (LINE_TERMINATOR.test(body)) return null;
  // `(?:async )?` is greedy: with the prefix taken first, then without it.
  if (body.startsWith('async ')) return frameBody(body.slice(6)) ?? frameBody(body);
  return frameBody(body);
}

/** `fn (file:line:column)` or `file:line:column`, what follows `at `; null when it is neither. */
function frameBody(body: string): StackFrame | null {
  const named = body.endsWith(')') ? location(body, body.length - 1) : null;
  if (named !== null) {
    // The shortest function name followed by ` (` that leaves the file its place (`.*?`).
    const open = body.indexOf(' (');
    if (open >= 0 && open + 2 <= named.fileEnd) {
      return { fn: body.slice(0, open), file: body.slice(open + 2, named.fileEnd), line: named.line, column: named.column };
    }
  }
  const anonymous = location(body, body.length);
  return anonymous === null ? null : { fn: '', file: body.slice(0, anonymous.fileEnd), line: anonymous.line, column: anonymous.column };
}

/** `:line:column` ending at `end` (both digit runs, not empty): the numbers, and where the file before them ends. */
function location(text: string, end: number): { fileEnd: number; line: number; column: number } | null {
  const columnColon = text.lastIndexOf(':', end - 1);
  if (columnColon < 0 || !allDigits(text, columnColon + 1, end)) return null;
  const lineColon = columnColon === 0 ? -1 : text.lastIndexOf(':', columnColon - 1);
  if (lineColon < 0 || !allDigits(text, lineColon + 1, columnColon)) return null;
  return { fileEnd: lineColon, line: Number(text.slice(lineColon + 1, columnColon)), column: Number(text.slice(columnColon + 1, end)) };
}

function allDigits(text: string, from: number, to: number): boolean {
  if (from >= to) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * The part of an error's stack below its message. V8 writes `Name: message` first, and a message may
 * span lines: a line of it that reads like a frame (`    at x (.env:1:1)`, from a route parameter or a
 * query value the message quotes) must not become a frame, whose source the debug page would read and
 * show. Symfony's FlattenException takes its frames from getTrace(), never from text. A stack that
 * does not quote the message on its first line (assigned by hand) is read whole, as before.
 */
export function stackBelowMessage(stack: string, message: string): string {
  if (message === '') return stack;
  const at = stack.indexOf(message);
  if (at < 0) return stack;
  const firstBreak = stack.indexOf('\n');
  return firstBreak < 0 || at <= firstBreak ? stack.slice(at + message.length) : stack;
}

/** stackBelowMessage for an error, its message read as the page reads it. */
function framesText(error: unknown, stack: string): string {
  return stackBelowMessage(stack, messageOf(error));
}

/** `error.stack`, or undefined when it is absent or its getter throws. */
export function stackOf(error: unknown): string | undefined {
  try {
    const stack = (error as { stack?: unknown } | null)?.stack;
    return typeof stack === 'string' ? stack : undefined;
  } catch {
    return undefined;
  }
}

const MAX_STACKS = 256;
const MAX_CACHED_STACK_CHARS = 32 * 1024;
const RECENT_STACKS = 4;

/**
 * Values worked out from a stack's text, per project root (paths are shown relative to it); bounded,
 * and only for stacks of a sane size. The last few keys looked up are compared before the map: a map
 * lookup hashes the whole stack (a few KB for a 50-frame trace, several µs), a comparison with an
 * equal stack is a memory compare.
 */
class StackCache<V> {
  private readonly recent: { root: string; key: string; value: V }[] = [];
  private readonly byRoot = new Map<string, Map<string, V>>();
  private count = 0;

  /** The value for `key` under `root`, worked out by `make` when it is not cached. */
  get(key: string, root: string, make: () => V): V {
    if (key.length > MAX_CACHED_STACK_CHARS) return make();
    for (let i = 0; i < this.recent.length; i++) {
      const r = this.recent[i]!;
      if (r.key === key && r.root === root) return r.value;
    }
    let perRoot = this.byRoot.get(root);
    let value = perRoot?.get(key);
    if (value === undefined) {
      value = make();
      if (this.count >= MAX_STACKS) {
        this.byRoot.clear();
        this.count = 0;
        perRoot = undefined;
      }
      if (perRoot === undefined) this.byRoot.set(root, (perRoot = new Map()));
      perRoot.set(key, value);
      this.count++;
    }
    if (this.recent.length >= RECENT_STACKS) this.recent.pop();
    this.recent.unshift({ root, key, value });
    return value;
  }

  clear(): void {
    this.byRoot.clear();
    this.count = 0;
    this.recent.length = 0;
  }
}

/**
 * Parsed and resolved frames by the frame lines of a stack: an error thrown from the same place has
 * the same frame lines whatever its message (every 404 of a route), so its frames are worked out
 * once. The arrays are shared: treat as read-only.
 */
interface StackEntry {
  frames: ResolvedFrame[];
  /** Shared slices of `frames` without the leading constructor frames, by how many are dropped. */
  from: ResolvedFrame[][];
}
const stacks = new StackCache<StackEntry>();

/** The stack from its first frame line on (what parseStack reads frames from), or null when it has none. */
function frameLines(stack: string): string | null {
  let at = 0;
  while (at < stack.length) {
    const end = stack.indexOf('\n', at);
    const line = end < 0 ? stack.slice(at) : stack.slice(at, end);
    if (parseFrame(line)) return at === 0 ? stack : stack.slice(at);
    if (end < 0) break;
    at = end + 1;
  }
  return null;
}

function stackEntry(stack: string, root: string): StackEntry {
  const lines = stack.length <= MAX_CACHED_STACK_CHARS ? frameLines(stack) : null;
  if (lines === null) return { frames: parseStack(stack).map((f) => resolveFrame(f, root)), from: [] };
  return stacks.get(lines, root, () => ({ frames: parseStack(lines).map((f) => resolveFrame(f, root)), from: [] }));
}

/**
 * The frames of an error, resolved. Leading `new X` frames of the error's own constructors
 * (subclass constructors appear in V8 traces) are dropped, so frame 0 is where it was thrown.
 * The array may be shared with other errors thrown from the same place: treat as read-only.
 */
export function errorFrames(error: unknown): ResolvedFrame[] {
  const stack = stackOf(error);
  if (!stack) return [];
  const known = capturedFrames(error, stack);
  if (known !== undefined) return known;
  const entry = stackEntry(framesText(error, stack), workingDirectory());
  const frames = entry.frames;
  let start = 0;
  if (frames.length > 1 && frames[0]!.fn.startsWith('new ')) {
    const ctors = constructorNames(error);
    while (start < frames.length - 1 && frames[start]!.fn.startsWith('new ') && ctors.has(frames[start]!.fn.slice(4))) start++;
  }
  if (start === 0) return frames;
  return (entry.from[start] ??= frames.slice(start));
}

function constructorNames(error: unknown): Set<string> {
  const names = new Set<string>();
  try {
    for (let p = Object.getPrototypeOf(error); p && p !== Object.prototype && names.size < 32; p = Object.getPrototypeOf(p)) {
      const name = (p as { constructor?: { name?: unknown } }).constructor?.name;
      if (typeof name === 'string' && name) names.add(name);
    }
  } catch {
    // A hostile prototype chain: keep every frame.
  }
  return names;
}

/** Resolved frames by raw location: the 404 path resolves the same frames again and again (bounded). */
const resolved = new Map<string, ResolvedFrame>();
const MAX_RESOLVED = 2048;

/** Forgets resolved frames (tests). */
export function clearFrameCache(): void {
  resolved.clear();
  captures.clear();
  stacks.clear();
}

/** One frame through source maps (when it points at generated JavaScript the host left unmapped). */
export function resolveFrame(frame: StackFrame, root: string = workingDirectory()): ResolvedFrame {
  const key = `${root}\0${frame.fn}\0${frame.file}\0${frame.line}\0${frame.column}`;
  const hit = resolved.get(key);
  if (hit !== undefined) return hit;
  const result = resolveUncached(frame, root);
  if (resolved.size >= MAX_RESOLVED) resolved.delete(resolved.keys().next().value as string);
  resolved.set(key, result);
  return result;
}

function resolveUncached(frame: StackFrame, root: string): ResolvedFrame {
  const file = stripFileUrl(frame.file);
  let resolved: ResolvedFrame = { ...frame, file, path: relativeTo(root, file), vendor: isVendor(file), generated: null };
  if (!resolved.vendor && /\.(?:c|m)?js$/.test(file)) {
    const map = sourceMapFor(file);
    const original = map?.originalPositionFor(frame.line, frame.column);
    if (original) {
      const source = stripFileUrl(original.source);
      resolved = {
        fn: frame.fn,
        file: source,
        path: relativeTo(root, source),
        line: original.line,
        column: original.column,
        vendor: isVendor(source),
        generated: { file, line: frame.line, column: frame.column },
      };
    }
  }
  return resolved;
}

/** V8's `Error.prepareStackTrace` hook that hands back the call sites instead of a text. */
const callSitesOf = (_error: unknown, sites: unknown): unknown => sites;

/** A capture's frames: the stack text as the host prints it, and the resolved frames (shared: read-only). */
interface CapturedStack {
  text: string;
  frames: ResolvedFrame[];
}

/** Captures by the call sites' own printed lines. */
const captures = new StackCache<CapturedStack>();

/** Errors given their frames by captureStack, with the stack text they were given (unchanged = still valid). */
const capturedErrors = new WeakMap<object, { stack: string; frames: ResolvedFrame[] }>();

type StackApi = { captureStackTrace?: (target: object, above?: unknown) => void; prepareStackTrace?: unknown };

/** `holder.stack` after a capture above `above`, formatted by `prepare` (undefined: the host's own formatting). */
function capture(api: StackApi, above: unknown, prepare: unknown): unknown {
  const previous = api.prepareStackTrace;
  const holder: { stack?: unknown } = {};
  try {
    api.prepareStackTrace = prepare ?? previous;
    api.captureStackTrace!(holder, above);
    return holder.stack;
  } finally {
    api.prepareStackTrace = previous;
  }
}

/** The frame lines of a formatted stack (`\n    at ...` each), or '' when it has none. */
function frameText(stack: unknown): string {
  if (typeof stack !== 'string') return '';
  const at = stack.indexOf('\n    at ');
  return at < 0 ? '' : stack.slice(at);
}

/**
 * Gives errors built without a stack (Error.stackTraceLimit at 0) the frames of the function that
 * called `above`, under their own first lines: the text the host would have printed (source-mapped
 * where it maps) and the resolved frames, which errorFrames and throwSite then use as they are.
 * False where the runtime has no V8 stack API (the errors are left as they were).
 *
 * Why: with source maps on, Node formats every frame in JavaScript (source-map lookups, file-URL
 * conversion, symbol names) — 20–35 µs for the frames of a 404, on every 404. Here V8 hands over
 * its call sites, printed natively as the key of a cache; only a stack not seen before is captured
 * a second time for the host to format.
 */
export function captureStack(above: (...args: never[]) => unknown, errors: readonly Error[]): boolean {
  const api = Error as StackApi;
  if (typeof api.captureStackTrace !== 'function') return false;
  let captured: CapturedStack | undefined;
  try {
    const sites = capture(api, above, callSitesOf);
    let raw: string;
    if (Array.isArray(sites)) {
      raw = '';
      for (let i = 0; i < sites.length && i < MAX_FRAMES; i++) raw += `\n${String(sites[i])}`;
    } else {
      // The runtime formatted the trace itself (no call sites): that text is the host's.
      raw = frameText(sites);
      if (raw === '') return false;
    }
    const root = workingDirectory();
    captured = captures.get(raw, root, () => {
      const text = Array.isArray(sites) ? frameText(capture(api, above, undefined)) : raw;
      return { text, frames: parseStack(text).map((f) => resolveFrame(f, root)) };
    });
  } catch {
    return false;
  }
  for (const error of errors) {
    const stack = `${stackOf(error) ?? ''}${captured.text}`;
    error.stack = stack;
    capturedErrors.set(error, { stack, frames: captured.frames });
  }
  return true;
}

/** The frames captureStack gave an error, while its stack is still the one it was given. */
function capturedFrames(error: unknown, stack: string): ResolvedFrame[] | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const known = capturedErrors.get(error);
  return known !== undefined && known.stack === stack ? known.frames : undefined;
}

/** Code around a resolved frame's line (from the file, or from the source map's embedded copy). */
export function frameExcerpt(frame: ResolvedFrame): ExcerptLine[] | null {
  try {
    const embedded = frame.generated ? (sourceMapFor(frame.generated.file)?.contentOf(frame.file) ?? null) : null;
    return codeExcerpt(frame.file, frame.line, embedded);
  } catch {
    return null;
  }
}

export function isVendor(file: string): boolean {
  return (
    file.includes('/node_modules/') ||
    file.includes('\\node_modules\\') ||
    file.startsWith('node:') ||
    file.startsWith('internal/') ||
    file.startsWith('ext:') ||
    file === 'native' ||
    file.startsWith('<')
  );
}

/**
 * Where irms-web's own code lives, as prefixes of resolved frame files, worked out on first use from
 * this module's own URL:
 * - run from the sources (`<root>/src/debug/stack.ts`): `<root>/src/`, and `<root>/dist/` for frames
 *   of its bundle that nothing mapped;
 * - bundled: the directory of `src/debug/stack.ts` as the bundle's source map names it (so mapped
 *   frames count wherever the bundle was written), and `<root>/dist/` when the bundle is there.
 * A host without file URLs gets none: irms-web's frames then cannot be told from the application's
 * (installed, they sit in node_modules, which isVendor counts anyway).
 */
let frameworkDirsCache: readonly string[] | undefined;

const OWN_SOURCE = '/src/debug/stack.ts';

function frameworkDirs(): string[] {
  try {
    const url = import.meta.url;
    if (typeof url !== 'string' || !url.startsWith('file:')) return [];
    const file = stripFileUrl(url);
    const here = slashes(file);
    if (here.endsWith(OWN_SOURCE)) {
      const root = here.slice(0, -OWN_SOURCE.length);
      return [`${root}/src/`, `${root}/dist/`];
    }
    const dirs: string[] = [];
    const own = sourceMapFor(file)?.sources.map(slashes).find((s) => s.endsWith(OWN_SOURCE));
    const root = own !== undefined ? own.slice(0, -OWN_SOURCE.length) : /\/dist\/[^/]+\.m?js$/.test(here) ? here.slice(0, here.lastIndexOf('/dist/')) : null;
    if (root !== null) {
      dirs.push(`${root}/src/`);
      if (here.startsWith(`${root}/dist/`)) dirs.push(`${root}/dist/`);
    }
    return dirs;
  } catch {
    return [];
  }
}

/** A path with `/` separators, and without the `/` a Windows file URL's path has before `C:`. */
function slashes(path: string): string {
  const p = path.includes('\\') ? path.replace(/\\/g, '/') : path;
  return p.charCodeAt(0) === 0x2f && /^\/[A-Za-z]:/.test(p) ? p.slice(1) : p;
}

/**
 * Whether a resolved frame's file is irms-web's own code. The profiler counts such frames with the
 * vendor frames (greyed, as Symfony greys vendor/): what the developer looks for is the application's.
 */
export function isFrameworkFile(file: string): boolean {
  const dirs = (frameworkDirsCache ??= frameworkDirs());
  if (dirs.length === 0) return false;
  const f = slashes(file);
  for (const dir of dirs) if (f.startsWith(dir)) return true;
  return false;
}

/**
 * Where an error was thrown: its first own frame (source-mapped), or `unknown` line 0. Never throws (a
 * stack getter or a Proxy trap may): log lines and profiles ask it of whatever was thrown.
 */
export function throwLocation(error: Error): { file: string; line: number } {
  try {
    const first = throwSite(error);
    if (first) return { file: first.file, line: first.line };
  } catch {
    // unreadable stack: unknown
  }
  return { file: 'unknown', line: 0 };
}

/** Throw sites already worked out, per error: the log line, its context and the page all ask. */
const sites = new WeakMap<object, ResolvedFrame | null>();

/**
 * Like throwLocation, with the path relative to the project root (log lines, pages). Only the first
 * own frame is parsed and resolved: every 404 asks for it, and most never need the rest of the stack.
 */
export function throwSite(error: unknown): ResolvedFrame | null {
  const cacheable = typeof error === 'object' && error !== null;
  if (cacheable && sites.has(error)) return sites.get(error)!;
  const stack = stackOf(error);
  let site: ResolvedFrame | null = null;
  const known = stack ? capturedFrames(error, stack) : undefined;
  if (known !== undefined) {
    site = known[0] ?? null;
  } else if (stack) {
    const text = framesText(error, stack);
    let ctors: Set<string> | null = null;
    let candidate: StackFrame | null = null;
    let count = 0;
    for (let at = 0; at < text.length; ) {
      if (count >= MAX_FRAMES) break;
      const end = text.indexOf('\n', at);
      const frame = parseFrame(end < 0 ? text.slice(at) : text.slice(at, end));
      at = end < 0 ? text.length : end + 1;
      if (!frame) continue;
      count++;
      candidate = frame;
      if (!frame.fn.startsWith('new ')) break;
      ctors ??= constructorNames(error);
      if (!ctors.has(frame.fn.slice(4))) break;
    }
    // As errorFrames: when every frame is a constructor frame, the last one stands.
    site = candidate ? resolveFrame(candidate) : null;
  }
  if (cacheable) sites.set(error, site);
  return site;
}

export function stripFileUrl(file: string): string {
  if (!file.startsWith('file://')) return file;
  try {
    return decodeURIComponent(new URL(file).pathname);
  } catch {
    return file.slice(7);
  }
}
