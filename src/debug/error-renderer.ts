import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import { statusText } from '../http/status.ts';
import { copyExceptionHeaders, statusOf } from '../kernel/exceptions.ts';
import { buildErrorPageModel, messageOf, safeClassName } from './error-page/model.ts';
import { escapeHtml } from './error-page/escape.ts';
import { renderDebugPageParts } from './error-page/page.ts';
import { splitBody } from './toolbar/body-parts.ts';
import { errorFrames } from './stack.ts';
import { rawUrlEncode } from '../http/url-encode.ts';

const esc = escapeHtml;

export { rawUrlEncode };

/** `X-Debug-Exception` carries at most this many UTF-8 bytes of the message (Symfony ≥ 5.4.42). */
const MAX_HEADER_MESSAGE_BYTES = 2000;
const PROBLEM_TYPE = 'https://tools.ietf.org/html/rfc2616#section-10';

/**
 * The error response for a throwable (CONTRACT §5): the debug page, the production page, or
 * problem+json for clients that prefer JSON. Status and headers (`Allow`, ...) come from the HTTP
 * exception. Never throws for a hostile error or log context: a part that cannot be rendered is
 * replaced by a smaller page with the same status.
 *
 * Non-debug problem+json: `detail` is always the status text, for 4xx as well as 5xx (Symfony's
 * ProblemNormalizer does the same). 4xx messages echo client input (URL, Referer, Host) and may be
 * written by application code with internal detail (ids, roles, tenants); an API that wants to
 * explain a 4xx to its clients returns its own response instead of throwing.
 */
export function renderError(error: Error, request: KernelRequest, debug: boolean): HttpResponse {
  const status = statusOf(error);
  const text = statusText(status);
  let response: HttpResponse;
  if (prefersJson(request)) {
    response = new HttpResponse(problemJson(error, status, text, debug), status);
    response.headers.set('content-type', 'application/problem+json');
  } else if (debug) {
    response = new HttpResponse('', status);
    const page = debugPage(error, request, status, text);
    response.body = typeof page === 'string' ? page : splitBody(response, page.head, page.tail);
    response.headers.set('content-type', 'text/html; charset=UTF-8');
  } else {
    response = new HttpResponse(productionPage(status, text), status);
    response.headers.set('content-type', 'text/html; charset=UTF-8');
  }
  copyExceptionHeaders(error, response.headers);
  varyOnAccept(response);
  if (debug) {
    let file = 'unknown';
    let line = 0;
    try {
      const first = errorFrames(error)[0];
      if (first) ({ file, line } = first);
    } catch {
      // keep "unknown"
    }
    response.headers.set('x-debug-exception', rawUrlEncode(utf8Prefix(messageOf(error), MAX_HEADER_MESSAGE_BYTES)));
    response.headers.set('x-debug-exception-file', `${rawUrlEncode(file)}:${line}`);
  }
  response.headers.set('x-content-type-options', 'nosniff');
  return response;
}

/**
 * The longest start of `text` whose UTF-8 form fits in `maxBytes` (a lone surrogate counts as the three
 * bytes of the U+FFFD rawUrlEncode writes for it). HtmlErrorRenderer::render and
 * SerializerErrorRenderer::render (5.4.42+) cut the message with `substr($message, 0, 2000)`, which
 * counts bytes: cutting 2000 UTF-16 units instead let a message of CJK text or of a Latin-1 Referer
 * make the header three times Symfony's bound (18 KB, past the 16 KB Node's and undici's parsers
 * accept). Unlike substr, a character is never split, so the header always decodes.
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const width = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + width > maxBytes) return text.slice(0, i);
    bytes += width;
    if (pair) i++;
  }
  return text;
}

/**
 * Adds `Accept` to the `Vary` the exception may have brought (`Origin`, say): the page depends on both
 * (CONTRACT §5 copies the exception's headers, §5.3 asks for `Vary: Accept`), and a shared cache that
 * lost the exception's own would serve one origin's error to another.
 */
function varyOnAccept(response: HttpResponse): void {
  const vary = response.headers.get('vary');
  if (vary === null) response.headers.set('vary', 'Accept');
  else if (!vary.split(',').some((name) => /^\s*(?:accept|\*)\s*$/i.test(name))) response.headers.set('vary', `${vary}, Accept`);
}

function prefersJson(request: KernelRequest): boolean {
  try {
    return request.prefersJson();
  } catch {
    return false;
  }
}

function problemJson(error: Error, status: number, text: string, debug: boolean): string {
  const problem: Record<string, unknown> = { type: PROBLEM_TYPE, title: text, status, detail: debug ? messageOf(error) : text };
  if (debug) {
    problem.class = safeClassName(error);
    try {
      problem.trace = errorFrames(error).map((f) => ({ function: f.fn, file: f.file, line: f.line, column: f.column, vendor: f.vendor }));
    } catch {
      problem.trace = [];
    }
  }
  return JSON.stringify(problem);
}

/** The page in two parts around its last `</body>` (where the toolbar goes), or the minimal page. */
function debugPage(error: Error, request: KernelRequest, status: number, text: string): { head: string; tail: string } | string {
  try {
    return renderDebugPageParts(buildErrorPageModel(error, request));
  } catch (failure) {
    return minimalDebugPage(error, status, text, failure);
  }
}

/** When the full page cannot be built: the headline and why, nothing else that could fail again. */
function minimalDebugPage(error: Error, status: number, text: string, failure: unknown): string {
  try {
    const headline = `${esc(messageOf(error))} (${status} ${esc(text)})`;
    return `<!-- ${headline} -->
<!DOCTYPE html>
<html lang="en">
<head><meta charset="UTF-8" /><meta name="robots" content="noindex,nofollow" /><title>${headline}</title></head>
<body>
<h2>${esc(safeClassName(error))}</h2>
<h2>HTTP ${status} <small>${esc(text)}</small></h2>
<h1>${esc(messageOf(error))}</h1>
<p>The full debug page could not be rendered: ${esc(safeClassName(failure))}: ${esc(messageOf(failure))}</p>
</body>
</html>
<!-- ${headline} -->
`;
  } catch {
    return productionPage(status, text);
  }
}

/**
 * Production pages by status: they depend on nothing else, so each is built once (and, after its
 * first write, kept flat by the engine instead of as a rope of template parts).
 */
const productionPages = new Map<number, string>();

function productionPage(status: number, text: string): string {
  let page = productionPages.get(status);
  if (page === undefined) {
    page = buildProductionPage(status, text);
    if (productionPages.size < 256) productionPages.set(status, page);
  }
  return page;
}

function buildProductionPage(status: number, text: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="UTF-8" />
    <meta name="robots" content="noindex,nofollow,noarchive" />
    <meta name="viewport" content="width=device-width,initial-scale=1" />
    <title>An Error Occurred: ${esc(text)}</title>
    <style>
        body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center; background: #f4f5f8; color: #1c2230; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
        @media (prefers-color-scheme: dark) { body { background: #111319; color: #e4e7ee; } }
        .container { max-width: 620px; padding: 32px; }
        h1 { font-size: 28px; margin: 0 0 8px; }
        h2 { font-size: 18px; font-weight: 500; margin: 0 0 16px; opacity: .8; }
    </style>
</head>
<body>
<div class="container">
<h1>Oops! An Error Occurred</h1>
<h2>The server returned a "${status} ${esc(text)}".</h2>
<p>Something is broken. Please let us know what you were doing when this error occurred. We will fix it as soon as possible. Sorry for any inconvenience caused.</p>
</div>
</body>
</html>
`;
}
