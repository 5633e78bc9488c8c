import { addParameter, inputVarsExceeded, MAX_INPUT_VARS, parseQuery, type KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import { decodeJsonLikePhp } from '../http/json-decode.ts';
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
 * case-insensitively, up to `;`, `,` or a space) fill the body parameters too
 * (uploaded files arrive as `File` values); an unreadable multipart body is the same 400. Each gives at
 * most MAX_INPUT_VARS (1000) variables, as PHP's max_input_vars: the rest is dropped with a WARNING.
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
    if (type === MULTIPART) return transformMultipart(event, request, header);
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
function postMediaType(header: string): string {
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
  request.request.replace(Array.isArray(data) ? arrayToRecord(data) : (data as Record<string, unknown>));
}

function transformForm(request: KernelRequest): Promise<void> {
  return request.content().then((bytes) => {
    if (bytes.byteLength === 0) return;
    // Form bodies are ASCII by construction; escapes are decoded as PHP's urldecode does (parseQuery).
    request.request.replace(parseQuery(lenientUtf8.decode(bytes), () => inputVarsExceeded(request, 'form body')));
  });
}

async function transformMultipart(event: RequestEvent, request: KernelRequest, header: string): Promise<void> {
  const bytes = await request.content();
  if (bytes.byteLength === 0) return;
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': header } }).formData();
  } catch {
    return badRequest(event);
  }
  const params = nullRecord();
  let count = 0;
  // Fields and files count alike against PHP's max_input_vars.
  for (const [key, value] of form) {
    if (++count > MAX_INPUT_VARS) {
      inputVarsExceeded(request, 'multipart body');
      break;
    }
    // A file input left empty is sent as a part with `filename=""`: PHP reports UPLOAD_ERR_NO_FILE and
    // Symfony's FileBag gives null, not an empty file ported code (`if ($file)`) would save.
    addParameter(params, key, typeof value !== 'string' && value.name === '' ? null : value);
  }
  request.request.replace(params);
}

/** A JSON array as body parameters: keys `0`, `1`, ... in a null-prototype object. */
function arrayToRecord(list: unknown[]): Record<string, unknown> {
  const out = nullRecord();
  for (let i = 0; i < list.length; i++) out[i] = list[i];
  return out;
}
