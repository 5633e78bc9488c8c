import type { AppServices } from '../../app/services.ts';
import { KernelRequest } from '../../http/request.ts';
import type { RequestSource } from '../../http/source.ts';
import { LEVELS, type LevelName } from '../../log/levels.ts';
import { HttpResponse } from '../../http/response.ts';
import { HttpException, NotFoundHttpException } from '../../kernel/exceptions.ts';
import type { RouteDefinition } from '../../routing/route.ts';
import { renderError } from '../error-renderer.ts';
import { parseFrame } from '../stack.ts';
import { markInterpolated } from '../error-page/model.ts';
import type { LogRecord } from '../../log/record.ts';
import { workingDirectory } from '../error-page/host-fs.ts';
import { renderToolbar } from '../toolbar/toolbar.ts';
import { isToken, type Profile, type ProfiledException } from './profile.ts';
import type { Profiler } from './profiler.ts';
import { esc, queryString } from './views/common.ts';
import { isPanel, PANEL_TITLES, renderPage, type PanelName, type ProfilerUrls } from './views/layout.ts';
import { renderPanel, type PanelContext, type RouteExplanationRow } from './views/panels.ts';
import { readCriteria, renderResults, renderSearchForm } from './views/search.ts';

/** How long a profile page waits for a profile that is still being stored (kernel.terminate). */
const PENDING_WAIT_MS = 2000;

const SEARCH_KEYS = ['ip', 'method', 'status', 'status_code', 'url', 'start', 'end', 'limit'];

function nonce(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Headers of every profiler page: never cached, never sniffed, scripts only with the page's nonce. */
function page(html: string, pageNonce: string, status = 200): HttpResponse {
  return HttpResponse.html(html, status, {
    'cache-control': 'no-store, private',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'content-security-policy': `default-src 'none'; script-src 'nonce-${pageNonce}'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'`,
  });
}

function json(data: unknown, status = 200): HttpResponse {
  return HttpResponse.json(data, status, { 'cache-control': 'no-store, private', 'x-content-type-options': 'nosniff' });
}

function buildUrls(services: AppServices): ProfilerUrls {
  const router = services.router;
  const gen = (name: string, params: Record<string, unknown>, fallback: string): string => {
    try {
      return router.generate(name, params);
    } catch {
      return fallback;
    }
  };
  const clean = (params: Record<string, string | number | undefined> = {}) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') out[k] = String(v);
    return out;
  };
  return {
    profile: (token, params = {}) => gen('_profiler', { token, ...params }, `/_profiler/${encodeURIComponent(token)}${queryString(params)}`),
    router: (token) => gen('_profiler_router', { token }, `/_profiler/${encodeURIComponent(token)}/router`),
    exception: (token) => gen('_profiler_exception', { token }, `/_profiler/${encodeURIComponent(token)}/exception`),
    search: (params) => gen('_profiler_search', clean(params), `/_profiler/search${queryString(clean(params))}`),
    results: (token, params) => gen('_profiler_search_results', { token, ...clean(params) }, `/_profiler/${encodeURIComponent(token)}/search/results${queryString(clean(params))}`),
    home: () => gen('_profiler_home', {}, '/_profiler/'),
    wdt: (token) => gen('_wdt', { token }, `/_wdt/${encodeURIComponent(token)}`),
  };
}

/**
 * A stored status the error renderer can answer with, else 500. The profile may come from a shared
 * directory (another version of the app, a hand edit): a status outside 100–599 made the renderer's
 * response throw, and the exception page a 500. Symfony renders this page's body alone
 * (ExceptionPanelController::body, HtmlErrorRenderer::getBody), so no stored status can break it.
 */
function renderableStatus(status: number): number {
  return Number.isInteger(status) && status >= 100 && status < 600 ? status : 500;
}

/**
 * Rebuilds a stored exception chain as errors the error renderer understands (class, status, stack
 * kept, less the frames storedFrameLine refuses).
 */
function rebuildError(e: ProfiledException, sources: SourceBounds, depth = 0): Error {
  const previous = e.previous && depth < 32 ? rebuildError(e.previous, sources, depth + 1) : undefined;
  const error = new HttpException(renderableStatus(e.status), e.message, previous);
  Object.defineProperty(error, 'className', { value: e.class });
  error.stack = e.stack ? storedStack(e.stack, sources) : `${e.class}: ${e.message}`;
  return error;
}

/** Where the source excerpts of a page rebuilt from a profile may be read: the project, less the store's directory. */
interface SourceBounds {
  root: string;
  storeDir: string | null;
}

function sourceBounds(profiler: Profiler): SourceBounds {
  const root = workingDirectory();
  const dir = (profiler.store as { dir?: unknown }).dir;
  const storeDir = typeof dir !== 'string' || dir === '' ? null : dir.startsWith('/') ? dir : `${root}/${dir}`;
  return { root, storeDir: storeDir === null ? null : storeDir.replace(/\/+$/, '') };
}

/**
 * The stored stack without the frames whose file the page must not read. A profile is a file in a
 * directory others may write to (a shared `file:` store): a frame naming `/home/app/.env:2` or
 * `/proc/self/environ:1` made the rebuilt exception page show that file's lines, one by one. Kept:
 * frames of the project (no dot-segment, as ProfilerController::openAction refuses, and none in the
 * store's directory, where a planted script's source map could name any file) and of the host
 * (`node:`, `ext:`, URLs), which are never read.
 */
function storedStack(stack: string, sources: SourceBounds): string {
  const lines = stack.split('\n');
  const kept = lines.filter((line) => {
    // The renderer's own parse, in one pass: it reads the files of exactly the frames it finds this way
    // (and a pattern of its own backtracked over every ` (` of a long stored line, quadratically).
    const frame = parseFrame(line);
    return frame === null || readableSource(frame.file, sources);
  });
  return kept.length === lines.length ? stack : kept.join('\n');
}

function readableSource(file: string, { root, storeDir }: SourceBounds): boolean {
  let path = file;
  if (path.startsWith('file://')) {
    try {
      path = decodeURIComponent(new URL(path).pathname);
    } catch {
      return false;
    }
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path === '<anonymous>' || path === 'native') {
    return true;
  }
  if (root === '' || !path.startsWith(`${root}/`)) return false;
  if (storeDir !== null && (path === storeDir || path.startsWith(`${storeDir}/`))) return false;
  return !path.slice(root.length).split(/[\\/]/).some((segment) => segment.startsWith('.'));
}

/**
 * The profiled request as the error renderer reads it (method, path, route, controller, logs), built
 * from the stored — masked — profile, so the page shows that request and never an unmasked secret.
 */
function replayRequest(profile: Profile, current: KernelRequest): KernelRequest {
  const headers = new Map<string, string>(Object.entries(profile.request.headers));
  headers.set('accept', 'text/html');
  const q = profile.url.indexOf('?');
  const source: RequestSource = {
    method: profile.request.realMethod,
    target: profile.request.pathInfo + (q >= 0 ? profile.url.slice(q) : ''),
    scheme: profile.request.scheme === 'https' ? 'https' : 'http',
    fallbackHost: profile.request.host,
    remoteAddress: profile.ip,
    protocol: 'HTTP/1.1',
    header: (name) => headers.get(name) ?? null,
    headers: () => headers.entries(),
    body: () => null,
  };
  const replay = new KernelRequest(source, current.settings);
  replay.setMethod(profile.method);
  if (profile.route) replay.attributes.set('_route', profile.route);
  if (profile.controller) {
    const controller = function () {};
    Object.defineProperty(controller, 'name', { value: profile.controller });
    replay.attributes.set('_controller', controller);
  }
  const records = replay.logger.records;
  if (records) {
    for (const log of profile.logs) {
      const levelName = log.level_name.toLowerCase();
      const record: LogRecord = {
        datetime: new Date(log.datetime),
        channel: log.channel,
        level: log.level,
        // Own names only, as the logs panel reads them (`constructor` is no level).
        levelName: (Object.hasOwn(LEVELS, levelName) ? levelName : 'debug') as LevelName,
        message: log.message,
        context: log.context && typeof log.context === 'object' ? (log.context as Record<string, unknown>) : {},
        extra: {},
      };
      // The stored message is interpolated already: the page shows it as the request logged it.
      markInterpolated(record);
      records.push(record);
    }
  }
  return replay;
}

const AUTO_SUBMIT = `document.querySelectorAll('.pf-filters select').forEach(function(s){s.addEventListener('change',function(){s.form.submit();});});`;

/**
 * The profiler's routes (CONTRACT §6.4), GET only (HEAD follows). Their names, paths and methods are
 * final. What they answer is not profiled (Profiler.disableFor).
 */
export function profilerRoutes(getServices: () => AppServices): RouteDefinition[] {
  /** What every action starts with; the request it answers is not profiled. */
  const context = (request: KernelRequest) => {
    const services = getServices();
    const profiler = services.profiler;
    if (!profiler) throw new NotFoundHttpException('The profiler is disabled.');
    profiler.disableFor(request);
    return { services, profiler, urls: buildUrls(services) };
  };

  const notFoundPage = (urls: ProfilerUrls, token: string, noProfiles = false): HttpResponse => {
    const n = nonce();
    const content = noProfiles
      ? '<div class="pf-notfound"><h2>There are no profiles</h2><p>No profiles found.</p></div>'
      : `<div class="pf-notfound"><h2>Token not found</h2><p>Token "${esc(token.slice(0, 200))}" not found.</p><p class="pf-empty">Profiles are kept for the newest requests only; older ones are removed to bound the store. <a href="${esc(urls.results('empty', { limit: 10 }))}">See the latest requests</a>.</p></div>`;
    return page(renderPage({ title: noProfiles ? 'No profiles' : 'Token not found', urls, nonce: n, content }), n);
  };

  const panelContext = (services: AppServices, urls: ProfilerUrls, request: KernelRequest): PanelContext => {
    const router = services.router as { explain?: (pathInfo: string, method: string) => RouteExplanationRow[] };
    return {
      urls,
      query: request.query.all(),
      explain: typeof router.explain === 'function' ? (p, m) => router.explain!(p, m) : undefined,
    };
  };

  const profilePage = (services: AppServices, urls: ProfilerUrls, request: KernelRequest, profile: Profile, panel: PanelName): HttpResponse => {
    const n = nonce();
    const content = renderPanel(panel, profile, panelContext(services, urls, request));
    return page(renderPage({ title: `${PANEL_TITLES[panel]} · ${profile.token}`, urls, nonce: n, profile, panel, content, script: panel === 'logs' ? AUTO_SUBMIT : undefined }), n);
  };

  /** The profile of a path token: `latest` resolves to the newest; pending profiles are waited for. */
  const resolve = async (profiler: Profiler, token: string): Promise<{ profile: Profile | null; noProfiles: boolean }> => {
    if (token === 'latest') {
      const latest = await profiler.latest();
      return latest ? { profile: await profiler.load(latest.token), noProfiles: false } : { profile: null, noProfiles: true };
    }
    return { profile: isToken(token) ? await profiler.load(token, PENDING_WAIT_MS) : null, noProfiles: false };
  };

  async function toolbarAction(request: KernelRequest): Promise<HttpResponse> {
    const { profiler, urls } = context(request);
    const token = request.attributes.getString('token');
    const headers = { 'content-type': 'text/html; charset=UTF-8', 'cache-control': 'no-store, private', 'x-content-type-options': 'nosniff' };
    if (token === 'empty') return new HttpResponse('', 200, headers);
    const profile = isToken(token) ? await profiler.load(token, PENDING_WAIT_MS) : null;
    if (!profile) return new HttpResponse('', 404, headers);
    return new HttpResponse(renderToolbar(profile, { profile: urls.profile, wdt: urls.wdt, search: () => urls.search() }), 200, headers);
  }

  function homeAction(request: KernelRequest): HttpResponse {
    const { urls } = context(request);
    return HttpResponse.redirect(urls.results('empty', { limit: 10 }), 302);
  }

  async function searchAction(request: KernelRequest): Promise<HttpResponse> {
    const { profiler, urls } = context(request);
    const query = request.query.all();
    const token = typeof query.token === 'string' ? query.token.trim().toLowerCase() : '';
    if (token) {
      if (isToken(token) || token === 'latest') return HttpResponse.redirect(urls.profile(token), 302);
      return notFoundPage(urls, token);
    }
    const { criteria, fields } = readCriteria(query);
    if (!SEARCH_KEYS.some((k) => k in query)) {
      const n = nonce();
      const content = `<h2>Search profiles</h2>${renderSearchForm(urls, fields)}<p class="pf-note">Every field is optional; results are listed newest first.</p>`;
      return page(renderPage({ title: 'Search', urls, nonce: n, content }), n);
    }
    const first = (await profiler.find({ ...criteria, limit: 1 }))[0];
    return HttpResponse.redirect(urls.results(first?.token ?? 'empty', { ...fields }), 302);
  }

  async function searchResultsAction(request: KernelRequest): Promise<HttpResponse> {
    const { profiler, urls } = context(request);
    const token = request.attributes.getString('token');
    const { criteria, fields } = readCriteria(request.query.all());
    const results = await profiler.find(criteria);
    if (request.prefersJson()) return json({ criteria, results });
    const profile = isToken(token) ? await profiler.load(token) : null;
    const n = nonce();
    return page(renderPage({ title: 'Search results', urls, nonce: n, profile, panel: null, content: renderResults(urls, results, fields) }), n);
  }

  async function panelAction(request: KernelRequest, forced?: PanelName): Promise<HttpResponse> {
    const { services, profiler, urls } = context(request);
    const token = request.attributes.getString('token');
    const { profile, noProfiles } = await resolve(profiler, token);
    if (request.prefersJson()) {
      return profile ? json(profile) : json({ error: noProfiles ? 'No profiles found.' : `Token "${token}" not found.` }, 404);
    }
    if (!profile) return notFoundPage(urls, token, noProfiles);
    const requested = forced ?? request.query.get('panel');
    // As ProfilerController::panelAction: only an absent `panel` picks the default; `?panel=` names
    // no collector (404). The message names the profile's own token, also when asked for `latest`.
    const panel = typeof requested === 'string' ? requested : profile.exception ? 'exception' : 'request';
    if (!isPanel(panel)) throw new NotFoundHttpException(`Panel "${panel}" is not available for token "${profile.token}".`);
    return profilePage(services, urls, request, profile, panel);
  }

  async function exceptionAction(request: KernelRequest): Promise<HttpResponse> {
    const { services, profiler, urls } = context(request);
    const token = request.attributes.getString('token');
    const { profile, noProfiles } = await resolve(profiler, token);
    if (!profile) return notFoundPage(urls, token, noProfiles);
    if (!profile.exception) {
      const n = nonce();
      return page(renderPage({ title: 'No exception', urls, nonce: n, profile, panel: 'exception', content: '<h2>Exception</h2><p class="pf-empty">No exception was thrown and caught during the request.</p>' }), n);
    }
    const rendered = renderError(rebuildError(profile.exception, sourceBounds(profiler)), replayRequest(profile, request), services.config.debug);
    const body = rendered.bodyText() ?? '';
    // The error page is shown as the visitor saw it, sandboxed: its scripts run in an opaque origin.
    return new HttpResponse(body, 200, {
      'content-type': 'text/html; charset=UTF-8',
      'cache-control': 'no-store, private',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "sandbox allow-scripts allow-popups; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'",
    });
  }

  return [
    { name: '_wdt', path: '/_wdt/:token', methods: ['GET'], controller: toolbarAction },
    { name: '_profiler_home', path: '/_profiler/', methods: ['GET'], controller: homeAction },
    { name: '_profiler_search', path: '/_profiler/search', methods: ['GET'], controller: searchAction },
    { name: '_profiler_search_results', path: '/_profiler/:token/search/results', methods: ['GET'], controller: searchResultsAction },
    { name: '_profiler_router', path: '/_profiler/:token/router', methods: ['GET'], controller: function routerAction(request: KernelRequest) { return panelAction(request, 'routing'); } },
    { name: '_profiler_exception', path: '/_profiler/:token/exception', methods: ['GET'], controller: exceptionAction },
    { name: '_profiler', path: '/_profiler/:token', methods: ['GET'], controller: function profileAction(request: KernelRequest) { return panelAction(request); } },
  ];
}
