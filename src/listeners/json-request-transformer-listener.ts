import { addParameter, inputVarsExceeded, MAX_INPUT_VARS, parseQuery, type KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import { asPhpArrays, decodeJsonLikePhp } from '../http/json-decode.ts';
import type { RequestEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';
import { nullRecord } from '../http/null-record.ts';
import { phpTrim } from '../http/header-utils.ts';

const JSON_TYPES = new Set(['application/json', 'application/x-json']);
const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';
/** Keeps a leading byte-order mark: PHP reads a form body's first name with it (`\uFEFFa`, not `a`). */
const lenientUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The qandidate JsonRequestTransformerListener (symfony-reference.md §8), plus form bodies.
 *
 * `Content-Type` `application/json` or `application/x-json` (parameters after `;` allowed; compared
 * case-sensitively, as Symfony's getFormat compares it): an empty body (or `0`) changes nothing; a JSON object
 * or array replaces the body parameters (arrays give keys `0`, `1`, ...); `null`/`true`/`false` change
 * nothing; invalid JSON, invalid UTF-8, a leading byte-order mark, a number, a string, or nesting deeper
 * than 512 → a plain `400`
 * `Unable to parse request.` set on the event, so routing and the firewall never run. The parameters
 * live in a null-prototype bag, and JSON.parse makes `__proto__`/`constructor` own keys of nested
 * objects, so no key ever reaches a prototype.
 *
 * `application/x-www-form-urlencoded` and `multipart/form-data` bodies (the type read as PHP reads it,
 * case-insensitively, up to `;`, `,` or a space) fill the body parameters too, as PHP fills `$_POST`
 * (uploaded files arrive as `File` values, `parseMultipart`). PHP refuses neither: a body it cannot read
 * gives what it could read, never a 400. Each gives at most MAX_INPUT_VARS (1000) variables, as PHP's
 * max_input_vars (a multipart body's files apart: at most MAX_FILE_UPLOADS, 20): the rest is dropped with
 * a WARNING.
 *
 * Bodies are read through `request.content()`, bounded by BODY_LIMIT: a Content-Length over the limit is
 * refused before a byte is read, a chunked body is cut off as soon as it passes the limit, and the
 * PayloadTooLargeHttpException becomes a 413 response. Requests without such a Content-Type are not read.
 */
export class JsonRequestTransformerListener {
  readonly onKernelRequest = listener<'kernel.request'>('JsonRequestTransformerListener::onKernelRequest', 'JSON request transformation', (event: RequestEvent) => {
    const request = event.request;
    const header = request.source.header('content-type');
    if (header === null) return;
    // Symfony's getContentType() compares the JSON types case-sensitively; form types are read by PHP itself.
    if (JSON_TYPES.has(formatMediaType(header))) return transformJson(event, request);
    const type = postMediaType(header);
    if (type === FORM) return transformForm(request);
    if (type === MULTIPART) return transformMultipart(request, header);
  });
}

/**
 * The media type as Request::getFormat (5.4) reads it: the whole header, or with a `;` the part before
 * it, trimmed as PHP's trim trims (space, tab, CR, LF, NUL, VT). String.prototype.trim also drops a
 * no-break space, so `\u00A0application/json` was decoded where Symfony leaves the body alone.
 */
function formatMediaType(header: string): string {
  const semi = header.indexOf(';');
  return semi < 0 ? header : phpTrim(header.slice(0, semi));
}

/**
 * The media type as PHP's SAPI reads it to fill `$_POST` (main/SAPI.c, sapi_read_post_data): up to the
 * first `;`, `,` or space, ASCII letters lower-cased, nothing trimmed.
 */
export function postMediaType(header: string): string {
  const end = header.search(POST_TYPE_END);
  return (end < 0 ? header : header.slice(0, end)).replace(ASCII_UPPER, (c) => c.toLowerCase());
}

const POST_TYPE_END = /[;, ]/;
const ASCII_UPPER = /[A-Z]+/g;

/** The listener's plain 400 (no error page), with the error pages' nosniff: the body is fixed text. */
function badRequest(event: RequestEvent): void {
  const response = new HttpResponse('Unable to parse request.', 400);
  response.headers.set('x-content-type-options', 'nosniff');
  event.setResponse(response);
}

async function transformJson(event: RequestEvent, request: KernelRequest): Promise<void> {
  const bytes = await request.content();
  if (bytes.byteLength === 0 || (bytes.byteLength === 1 && bytes[0] === 0x30)) return;
  let data: unknown;
  try {
    data = decodeJsonLikePhp(bytes).data;
  } catch {
    return badRequest(event);
  }
  if (data === null || typeof data === 'boolean') return;
  if (typeof data !== 'object') return badRequest(event);
  data = asPhpArrays(data);
  request.request.replace(Array.isArray(data) ? arrayToRecord(data) : (data as Record<string, unknown>));
}

function transformForm(request: KernelRequest): Promise<void> {
  return request.content().then((bytes) => {
    if (bytes.byteLength === 0) return;
    // Form bodies are ASCII by construction; escapes are decoded as PHP's urldecode does (parseQuery).
    request.request.replace(parseQuery(lenientUtf8.decode(bytes), () => inputVarsExceeded(request, 'form body'), true));
  });
}

/**
 * PHP's defaults: max_file_uploads, and max_multipart_body_parts (-1: max_input_vars + max_file_uploads,
 * PHP 8.0.28+). The parts bound is what stops a body of thousands of tiny parts early: PHP stops reading
 * there, and so does this parser (Response.formData() parsed every part of a 1 MB body, files included,
 * about 130 µs each, before the 1000th could be dropped).
 */
const MAX_FILE_UPLOADS = 20;
const MAX_BODY_PARTS = MAX_INPUT_VARS + MAX_FILE_UPLOADS;

async function transformMultipart(request: KernelRequest, header: string): Promise<void> {
  const bytes = await request.content();
  if (bytes.byteLength === 0) return;
  const boundary = multipartBoundary(header);
  if (boundary === null) return multipartWarning(request, 'Missing boundary in multipart/form-data POST data: no body parameters were read.');
  if (boundary === undefined) return multipartWarning(request, 'Invalid boundary in multipart/form-data POST data: no body parameters were read.');
  request.request.replace(parseMultipart(bytes, boundary, request));
}

/** PHP's startup warnings about a multipart body (rfc1867.c), as request.WARNING records. */
function multipartWarning(request: KernelRequest, message: string): void {
  request.logger.warning('request', message);
}

/**
 * The boundary as rfc1867_post_handler finds it in the whole Content-Type: after the first `boundary`
 * (any case), its first `=`; quoted up to the next `"`, or else up to `,` or `;` (a space stays in it).
 * null when there is none ("Missing boundary"), undefined for an unclosed quote ("Invalid boundary").
 */
function multipartBoundary(header: string): string | null | undefined {
  let at = header.indexOf('boundary');
  if (at < 0) at = header.replace(ASCII_UPPER, (c) => c.toLowerCase()).indexOf('boundary');
  const eq = at < 0 ? -1 : header.indexOf('=', at);
  if (eq < 0) return null;
  const rest = header.slice(eq + 1);
  if (rest.startsWith('"')) {
    const close = rest.indexOf('"', 1);
    return close < 0 ? undefined : rest.slice(1, close);
  }
  const end = rest.search(BOUNDARY_END);
  return end < 0 ? rest : rest.slice(0, end);
}

const BOUNDARY_END = /[,;]/;
const LF = 0x0a;
const CR = 0x0d;
const latin1Bytes = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);

/**
 * A multipart body as PHP's rfc1867_post_handler (PHP 8) fills `$_POST` and `$_FILES`, merged into one
 * set of parameters (README: uploaded files are `File` values in the body parameters):
 * - lines end at LF (a CR before it dropped); a part starts after a line that is exactly `--boundary`,
 *   so a preamble, an epilogue and everything after `--boundary--` are skipped, and a missing final
 *   boundary ends the last part at the end of the body;
 * - a part's headers are read as PHP reads them (a line starting with a blank, or without `:`,
 *   continues the previous one); a part without Content-Disposition is skipped, one with neither
 *   `name` nor `filename` ends the body ("File Upload Mime headers garbled");
 * - `name` and `filename` are read quoted (`"` or `'`, `\` escapes) or bare; `filename*` is ignored;
 * - a field's value runs to the CR LF before the next boundary; at most MAX_INPUT_VARS fields count
 *   (files do not), and a field named like an earlier file is dropped (PHP protects `$_FILES` names);
 * - a file (a `filename` parameter) keeps the basename of its name (`C:\x\y.txt` is `y.txt`,
 *   `../../etc/passwd` is `passwd`), its type up to `;` (none: `application/octet-stream`, Symfony's
 *   UploadedFile); `filename=""`, a file cut short by the body's end, or one over a MAX_FILE_SIZE field
 *   are null (UPLOAD_ERR_NO_FILE, _PARTIAL, _FORM_SIZE: no valid UploadedFile in Symfony); past
 *   MAX_FILE_UPLOADS files, or under a name whose brackets do not pair up, a file is skipped;
 * - after MAX_BODY_PARTS parts the rest is ignored.
 * Each skipped limit logs PHP's warning. Linear in the body's length.
 */
function parseMultipart(bytes: Uint8Array, boundary: string, request: KernelRequest): Record<string, unknown> {
  const params = nullRecord();
  const delimiter = `--${boundary}`;
  const next = latin1Bytes(`\n${delimiter}`);
  const protectedNames = new Set<string>();
  let pos = 0;
  let parts = 0;
  let fields = 0;
  let uploads = 0;
  let anonymous = 0;
  let maxFileSize = 0;
  let uploadsWarned = false;
  while (pos < bytes.length) {
    const start = findDelimiterLine(bytes, pos, delimiter);
    if (start < 0) break;
    const head = readHeaders(bytes, start);
    pos = head.end;
    const disposition = head.disposition;
    if (disposition === null) continue;
    if (++parts > MAX_BODY_PARTS) {
      // One WARNING says the request lost variables: PHP's second one adds nothing after max_input_vars'.
      if (fields <= MAX_INPUT_VARS) multipartWarning(request, `Multipart body parts limit exceeded ${MAX_BODY_PARTS}: the rest of the multipart body was ignored (PHP's max_multipart_body_parts).`);
      break;
    }
    const { name, filename } = dispositionParams(disposition);
    if (filename === null) {
      if (name === null) {
        multipartWarning(request, 'File Upload Mime headers garbled: the rest of the multipart body was ignored.');
        break;
      }
      const value = readPartBody(bytes, pos, next);
      pos = value.end;
      const text = lenientUtf8.decode(bytes.subarray(value.start, value.stop));
      if (++fields > MAX_INPUT_VARS) {
        if (fields === MAX_INPUT_VARS + 1) inputVarsExceeded(request, 'multipart body');
      } else if (!protectedNames.has(protectedName(name))) addParameter(params, name, text);
      // PHP reads the MAX_FILE_SIZE hint whether or not the field was kept.
      if (name.toLowerCase() === 'max_file_size') maxFileSize = atoll(text);
      continue;
    }
    const skip = uploads >= MAX_FILE_UPLOADS;
    if (skip && !uploadsWarned) {
      multipartWarning(request, `Maximum number of allowable file uploads has been exceeded: files past ${MAX_FILE_UPLOADS} were ignored (PHP's max_file_uploads).`);
      uploadsWarned = true;
    }
    const param = name ?? String(anonymous++);
    if (skip || !bracketsPair(param)) continue;
    if (filename === '') {
      addFile(params, protectedNames, param, null);
      continue;
    }
    uploads++;
    const data = readPartBody(bytes, pos, next);
    pos = data.end;
    const size = data.stop - data.start;
    const complete = data.complete && !(maxFileSize > 0 && size > maxFileSize);
    addFile(params, protectedNames, param, complete ? new File([bytes.slice(data.start, data.stop)], basename(filename), { type: fileType(head) }) : null);
  }
  return params;
}

function addFile(params: Record<string, unknown>, protectedNames: Set<string>, name: string, file: File | null): void {
  protectedNames.add(protectedName(name));
  addParameter(params, name, file);
}

/**
 * The index just after the next line that is exactly `delimiter` (PHP's find_boundary), or -1. Lines end
 * at LF; a CR before it is not part of the line.
 */
function findDelimiterLine(bytes: Uint8Array, from: number, delimiter: string): number {
  for (let pos = from; pos < bytes.length; ) {
    const lf = bytes.indexOf(LF, pos);
    if (lf < 0) return -1;
    const end = lf > pos && bytes[lf - 1] === CR ? lf - 1 : lf;
    if (end - pos === delimiter.length && sameText(bytes, pos, delimiter)) return lf + 1;
    pos = lf + 1;
  }
  return -1;
}

function sameText(bytes: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== (text.charCodeAt(i) & 0xff)) return false;
  return true;
}

/** The two headers of a part that PHP reads: the first Content-Disposition and the first Content-Type. */
interface PartHeaders {
  disposition: string | null;
  type: string | null;
}

/**
 * A part's header lines up to the blank one (or the body's end), as multipart_buffer_headers joins them:
 * a line starting with a blank, or without `:`, continues the previous header. Only the two headers
 * PHP reads are kept; the block is decoded once, and other headers cost no allocation (a decoder call
 * and a string per line made a 1 MB body of one-byte header lines cost half a second).
 */
function readHeaders(bytes: Uint8Array, from: number): PartHeaders & { end: number } {
  let pos = from;
  let blockEnd = from;
  for (;;) {
    const lf = bytes.indexOf(LF, pos);
    // PHP's get_line returns no unterminated last line.
    if (lf < 0) {
      pos = bytes.length;
      break;
    }
    const blank = lf === pos || (lf === pos + 1 && bytes[pos] === CR);
    pos = lf + 1;
    if (blank) break;
    blockEnd = pos;
  }
  const found: PartHeaders = { disposition: null, type: null };
  if (blockEnd === from) return { ...found, end: pos };
  const block = lenientUtf8.decode(bytes.subarray(from, blockEnd - 1));
  let current: keyof PartHeaders | null = null;
  let pieces: string[] = [];
  const keep = () => {
    if (current !== null) found[current] = pieces.join('');
  };
  let started = false;
  // The next `:` from a line's start, searched again only once passed: a search per line to the
  // block's end made lines without one quadratic.
  let colon = -1;
  for (let at = 0; at <= block.length; ) {
    let lf = block.indexOf('\n', at);
    if (lf < 0) lf = block.length;
    const end = lf > at && block.charCodeAt(lf - 1) === CR ? lf - 1 : lf;
    if (colon < at) {
      const next = block.indexOf(':', at);
      colon = next < 0 ? block.length + 1 : next;
    }
    if (!isCSpace(block.charCodeAt(at)) && colon < end) {
      keep();
      started = true;
      current = headerKey(block, at, colon, found);
      if (current !== null) {
        let v = colon + 1;
        while (v < end && isCSpace(block.charCodeAt(v))) v++;
        pieces = [block.slice(v, end)];
      }
    } else if (started && current !== null) pieces.push(block.slice(at, end));
    at = lf + 1;
  }
  keep();
  return { ...found, end: pos };
}

/** Which kept header `block[at, colon)` names (strcasecmp: ASCII letters in any case), unless one was found already. */
function headerKey(block: string, at: number, colon: number, found: PartHeaders): keyof PartHeaders | null {
  const length = colon - at;
  if (length !== 19 && length !== 12) return null;
  const key = block.slice(at, colon).replace(ASCII_UPPER, (c) => c.toLowerCase());
  if (key === 'content-disposition') return found.disposition === null ? 'disposition' : null;
  if (key === 'content-type') return found.type === null ? 'type' : null;
  return null;
}

/** A file's type: its part's Content-Type up to `;` (rfc1867.c), or Symfony's UploadedFile default. */
function fileType(headers: PartHeaders): string {
  const type = headers.type ?? '';
  const semi = type.indexOf(';');
  return (semi < 0 ? type : type.slice(0, semi)) || 'application/octet-stream';
}

/**
 * A part's data from `from` to the next `\n--boundary` (a CR just before it dropped), or to the end of
 * the body without one, less a start of that delimiter cut off by the end (php_ap_memstr's partial
 * match). `complete` says whether the delimiter was there: a file without it is UPLOAD_ERR_PARTIAL.
 */
function readPartBody(bytes: Uint8Array, from: number, next: Uint8Array): { start: number; stop: number; end: number; complete: boolean } {
  let bound = -1;
  let complete = false;
  for (let at = bytes.indexOf(next[0]!, from); at >= 0; at = bytes.indexOf(next[0]!, at + 1)) {
    let i = 1;
    while (i < next.length && at + i < bytes.length && bytes[at + i] === next[i]) i++;
    if (i === next.length || at + i === bytes.length) {
      bound = at;
      complete = i === next.length;
      break;
    }
  }
  const end = bound < 0 ? bytes.length : bound;
  const stop = bound >= 0 && end > from && bytes[end - 1] === CR ? end - 1 : end;
  return { start: from, stop, end, complete };
}

/** `name` and `filename` of a Content-Disposition value, as PHP's php_ap_getword / getword_conf read them. */
function dispositionParams(value: string): { name: string | null; filename: string | null } {
  let name: string | null = null;
  let filename: string | null = null;
  let rest = value;
  let i = 0;
  while (isCSpace(rest.charCodeAt(i))) i++;
  rest = rest.slice(i);
  while (rest !== '') {
    const [pair, after] = getWord(rest, ';');
    rest = after.replace(LEADING_C_SPACE, '');
    if (!pair.includes('=')) continue;
    const [key, word] = getWord(pair, '=');
    const lower = key.replace(ASCII_UPPER, (c) => c.toLowerCase());
    if (lower === 'name') name = getWordConf(word);
    else if (lower === 'filename') filename = getWordConf(word);
  }
  return { name, filename };
}

const LEADING_C_SPACE = /^[ \t\n\v\f\r]+/;

/** php_ap_getword: the text up to `stop` outside quotes, and what follows the run of `stop`s. */
function getWord(line: string, stop: string): [string, string] {
  let pos = 0;
  while (pos < line.length && line[pos] !== stop) {
    const quote = line[pos];
    if (quote === '"' || quote === "'") {
      pos++;
      while (pos < line.length && line[pos] !== quote) pos += line[pos] === '\\' && line[pos + 1] === quote ? 2 : 1;
      if (pos < line.length) pos++;
    } else pos++;
  }
  if (pos >= line.length) return [line, ''];
  const word = line.slice(0, pos);
  while (line[pos] === stop) pos++;
  return [word, line.slice(pos)];
}

/** php_ap_getword_conf: a quoted value up to its closing quote, or a bare one up to a blank; `\\` and `\"` unescaped. */
function getWordConf(text: string): string {
  let i = 0;
  while (isCSpace(text.charCodeAt(i))) i++;
  const quote = text[i] === '"' || text[i] === "'" ? text[i]! : '';
  if (quote) i++;
  let out = '';
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quote ? c === quote : isCSpace(text.charCodeAt(i))) break;
    if (c === '\\' && (text[i + 1] === '\\' || (quote !== '' && text[i + 1] === quote))) out += text[++i];
    else out += c;
  }
  return out;
}

/** php_ap_basename: what follows the last `/` or `\\`, so a client's path never reaches the application. */
function basename(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return cut < 0 ? path : path.slice(cut + 1);
}

/** rfc1867's "never repair potential malicious user input": a file name's brackets must pair, and nothing may follow a `]` but a `[`. */
function bracketsPair(name: string): boolean {
  let depth = 0;
  for (let i = 0; i < name.length; i++) {
    if (name[i] === '[') depth++;
    else if (name[i] === ']') {
      depth--;
      if (depth < 0 || (i + 1 < name.length && name[i + 1] !== '[')) return false;
    }
  }
  return depth === 0;
}

/**
 * normalize_protected_variable: leading spaces dropped, `.` and space in the base name as `_`, blanks at the
 * start of each bracket group dropped, text after the last group ignored.
 */
function protectedName(name: string): string {
  const trimmed = name.replace(LEADING_SPACES, '');
  const open = trimmed.indexOf('[');
  if (open < 0) return trimmed.replace(MANGLED, '_');
  let out = trimmed.slice(0, open).replace(MANGLED, '_');
  for (let at = open; trimmed[at] === '['; ) {
    let key = at + 1;
    while (PROTECTED_BLANK.test(trimmed[key] ?? '')) key++;
    const close = trimmed.indexOf(']', key);
    const end = close < 0 ? trimmed.length : close + 1;
    out += `[${trimmed.slice(key, end)}`;
    at = end;
  }
  return out;
}

const LEADING_SPACES = /^ +/;
const MANGLED = /[ .]/g;
const PROTECTED_BLANK = /^[ \r\n\t]$/;

/** C's isspace in the "C" locale. */
function isCSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/** PHP's atoll (MAX_FILE_SIZE): leading blanks, a sign, digits; 0 without digits. */
function atoll(text: string): number {
  const m = ATOLL.exec(text);
  return m ? Number(m[0]) : 0;
}

const ATOLL = /^[ \t\n\v\f\r]*[+-]?\d+/;

/** A JSON array as body parameters: keys `0`, `1`, ... in a null-prototype object. */
function arrayToRecord(list: unknown[]): Record<string, unknown> {
  const out = nullRecord();
  for (let i = 0; i < list.length; i++) out[i] = list[i];
  return out;
}
