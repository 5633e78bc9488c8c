import he from 'he';
import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import { statusText } from '../http/status.ts';
import { classNameOf, exceptionChain, headersOf, statusOf } from '../kernel/exceptions.ts';
import { throwLocation } from './stack.ts';

const esc = (s: string) => he.escape(s);

/** rawurlencode: everything but A-Z a-z 0-9 - _ . ~ is percent-encoded, so any character is header-safe. */
export function rawUrlEncode(s: string): string {
  return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, (c, i, all) => (isPaired(all, i) ? c : '\uFFFD'))).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

function isPaired(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c <= 0xdbff) return i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
  return i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff;
}

/** The error response for a throwable: debug page, production page or problem+json (CONTRACT §5). */
export function renderError(error: Error, request: KernelRequest, debug: boolean): HttpResponse {
  const status = statusOf(error);
  const text = statusText(status);
  const headers: Record<string, string> = { ...headersOf(error) };
  let response: HttpResponse;
  if (request.prefersJson()) {
    const problem: Record<string, unknown> = { type: 'https://tools.ietf.org/html/rfc2616#section-10', title: text, status, detail: debug ? error.message : text };
    if (debug) {
      problem.class = classNameOf(error);
      problem.trace = error.stack?.split('\n').slice(1).map((l) => l.trim()) ?? [];
    }
    response = new HttpResponse(JSON.stringify(problem), status, headers);
    response.headers.set('content-type', 'application/problem+json');
    response.headers.set('vary', 'Accept');
  } else {
    response = new HttpResponse(debug ? debugPage(error, status, text) : productionPage(status, text), status, headers);
    response.headers.set('content-type', 'text/html; charset=UTF-8');
    response.headers.set('vary', 'Accept');
  }
  if (debug) {
    const { file, line } = throwLocation(error);
    response.headers.set('x-debug-exception', rawUrlEncode(error.message.slice(0, 2000)));
    response.headers.set('x-debug-exception-file', `${rawUrlEncode(file)}:${line}`);
  }
  response.headers.set('x-content-type-options', 'nosniff');
  return response;
}

function productionPage(status: number, text: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="UTF-8" />
    <meta name="robots" content="noindex,nofollow,noarchive" />
    <title>An Error Occurred: ${esc(text)}</title>
</head>
<body>
<h1>Oops! An Error Occurred</h1>
<h2>The server returned a "${status} ${esc(text)}".</h2>
<p>Something is broken. Please let us know what you were doing when this error occurred. We will fix it as soon as possible. Sorry for any inconvenience caused.</p>
</body>
</html>
`;
}

function debugPage(error: Error, status: number, text: string): string {
  const title = `${esc(error.message)} (${status} ${esc(text)})`;
  const chain = exceptionChain(error);
  const blocks = chain
    .map((e) => `<div class="exception"><h3>${esc(classNameOf(e))}</h3><p class="message">${esc(e.message)}</p><pre>${esc(e.stack ?? '')}</pre></div>`)
    .join('\n');
  return `<!-- ${title} -->
<!DOCTYPE html>
<html lang="en">
<head><meta charset="UTF-8" /><meta name="robots" content="noindex,nofollow" /><title>${title}</title></head>
<body>
<p class="hierarchy">${chain.map((e) => esc(classNameOf(e))).reverse().join(' &gt; ')}</p>
<h2>HTTP ${status} ${esc(text)}</h2>
<h1>${esc(error.message)}</h1>
${blocks}
</body>
</html>
<!-- ${title} -->
`;
}
