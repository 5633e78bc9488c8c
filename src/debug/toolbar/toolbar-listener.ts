import type { AppServices } from '../../app/services.ts';
import type { KernelRequest } from '../../http/request.ts';
import type { HttpResponse } from '../../http/response.ts';
import type { ResponseEvent } from '../../kernel/events.ts';
import { listener } from '../../kernel/hooks.ts';
import { isToken } from '../profiler/profile.ts';
import { profileLink, tokenUrl } from '../profiler/profiler-listener.ts';
import { utf8Length } from '../profiler/stored.ts';
import { bodyBeforeHead } from '../../listeners/response-listener.ts';
import { bodyParts } from './body-parts.ts';
import { addCspNonce, lastBodyClose, lastBodyCloseBytes, randomNonce, toolbarSnippet, type ToolbarUrls } from './toolbar.ts';

/** The policies the snippet's nonce is added to: ContentSecurityPolicyHandler's three (the last is the legacy header of old Firefox and IE). */
const CSP_HEADERS = ['content-security-policy', 'content-security-policy-report-only', 'x-content-security-policy'] as const;

/** Why the toolbar is not injected into a response, or null when it is (exported for tests and docs). */
export function toolbarExclusion(request: KernelRequest, response: HttpResponse): string | null {
  if (!request.isMainRequest) return 'sub-request';
  if (request.isXmlHttpRequest()) return 'XHR request';
  if (response.status >= 300 && response.status < 400) return 'redirect';
  const type = response.headers.get('content-type');
  if (type !== null && !type.toLowerCase().includes('html')) return 'not HTML';
  // WebDebugToolbarListener: `'html' !== $request->getRequestFormat()`; an empty `_format` is no html either.
  if (request.getRequestFormat() !== 'html') return 'request format is not html';
  if (isAttachment(response.headers.get('content-disposition'))) return 'attachment';
  const encoding = response.headers.get('content-encoding');
  if (encoding && encoding.toLowerCase() !== 'identity') return 'encoded body';
  if (!(typeof response.body === 'string' || response.body instanceof Uint8Array)) return response.body === null ? 'no body' : 'streamed body';
  return null;
}

/**
 * Whether a Content-Disposition's type is `attachment` (RFC 6266 §4.1), with or without parameters.
 * Only the type counts: `inline; filename="attachment.html"` is a page shown in the browser, and
 * WebDebugToolbarListener::onKernelResponse (which looks for `attachment;`) injects the toolbar there.
 */
function isAttachment(disposition: string | null): boolean {
  if (!disposition) return false;
  const semi = disposition.indexOf(';');
  return (semi < 0 ? disposition : disposition.slice(0, semi)).trim().toLowerCase() === 'attachment';
}

/**
 * Symfony's WebDebugToolbarListener: on every profiled response makes sure `X-Debug-Token-Link` is set;
 * on main, non-XHR, non-redirect, non-attachment HTML responses (error pages included) injects the
 * toolbar just before the last `</body>`. JSON, redirects, streamed and encoded bodies are untouched;
 * a `Content-Length` that was set is corrected.
 *
 * HEAD gets no toolbar (its body stays empty, CONTRACT §6.5) but keeps GET's headers (§9): the
 * toolbar is injected into the body GET would have sent, its length declared, and the body dropped.
 */
export class WebDebugToolbarListener {
  constructor(private readonly services: AppServices) {}

  readonly onKernelResponse = listener<'kernel.response'>('WebDebugToolbarListener::onKernelResponse', 'debug toolbar injection', (event: ResponseEvent) => {
    const { request, response } = event;
    const token = response.headers.get('x-debug-token');
    if (!token || !isToken(token)) return;
    if (!response.headers.has('x-debug-token-link')) response.headers.set('x-debug-token-link', profileLink(this.services, request, token));
    if (request.realMethod === 'HEAD') return this.declareForHead(request, response, token);
    if (toolbarExclusion(request, response) !== null) return;
    this.inject(response, token);
  });

  /** HEAD: the Content-Length (and CSP nonce) of GET's answer with the toolbar, and no body. */
  private declareForHead(request: KernelRequest, response: HttpResponse, token: string): void {
    const body = bodyBeforeHead(response);
    if (body === undefined || !response.headers.has('content-length')) return;
    response.body = body;
    try {
      if (toolbarExclusion(request, response) !== null) return;
      this.inject(response, token);
      const sent = response.body as string | Uint8Array;
      response.headers.set('content-length', String(typeof sent === 'string' ? utf8Length(sent) : sent.byteLength));
    } finally {
      response.body = '';
    }
  }

  private cachedUrls: ToolbarUrls | null = null;

  /** Built once: the toolbar's URLs of a token come from templates generated once per route. */
  private urls(): ToolbarUrls {
    if (this.cachedUrls) return this.cachedUrls;
    const router = this.services.router;
    const gen = (name: string, params: Record<string, unknown>, fallback: string) => {
      try {
        return router.generate(name, params);
      } catch {
        return fallback;
      }
    };
    const byToken = (name: string, token: string, fallback: string) => {
      try {
        return tokenUrl(router, name, token);
      } catch {
        return fallback;
      }
    };
    let search: string | null = null;
    this.cachedUrls = {
      profile: (token, params = {}) => (Object.keys(params).length === 0 ? byToken('_profiler', token, `/_profiler/${token}`) : gen('_profiler', { token, ...params }, `/_profiler/${token}`)),
      wdt: (token) => byToken('_wdt', token, `/_wdt/${token}`),
      search: () => (search ??= gen('_profiler_search', {}, '/_profiler/search')),
    };
    return this.cachedUrls;
  }

  /**
   * One nonce for the snippet, added to each policy the response has (null when it has none). The
   * Report-Only policy gets it too, as Symfony's handler does: left alone, it would file a violation
   * report for the toolbar on every page.
   */
  private nonceForCsp(response: HttpResponse): string | null {
    let nonce: string | null = null;
    for (const name of CSP_HEADERS) {
      const csp = response.headers.get(name);
      if (!csp) continue;
      nonce ??= randomNonce();
      response.headers.set(name, addCspNonce(csp, nonce));
    }
    return nonce;
  }

  private inject(response: HttpResponse, token: string): void {
    const body = response.body as string | Uint8Array;
    const parts = bodyParts(response, body);
    const at = parts !== null ? parts.head.length : typeof body === 'string' ? lastBodyClose(body) : lastBodyCloseBytes(body);
    if (at < 0) return;
    const nonce = this.nonceForCsp(response);
    const snippet = `\n${toolbarSnippet(token, this.urls(), nonce)}\n`;
    if (typeof body === 'string') {
      response.body = parts !== null ? parts.head + snippet + parts.tail : body.slice(0, at) + snippet + body.slice(at);
      if (response.headers.has('content-length')) response.headers.set('content-length', String(utf8Length(response.body)));
    } else {
      const inserted = new TextEncoder().encode(snippet);
      const out = new Uint8Array(body.byteLength + inserted.byteLength);
      out.set(body.subarray(0, at), 0);
      out.set(inserted, at);
      out.set(body.subarray(at), at + inserted.byteLength);
      response.body = out;
      if (response.headers.has('content-length')) response.headers.set('content-length', String(out.byteLength));
    }
  }
}
