/**
 * Test support for the profiler: an app in debug mode with the profiler and toolbar listeners on their
 * hooks. The hook table (src/app/listeners.ts) places them; should it not (yet), they are registered
 * here through `listeners` at Symfony's positions, so these tests exercise the listeners either way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App, type AppOptions, type ListenerRegistration } from '../../src/index.ts';
import type { AppServices } from '../../src/app/services.ts';
import { ProfilerListener } from '../../src/debug/profiler/profiler-listener.ts';
import { WebDebugToolbarListener } from '../../src/debug/toolbar/toolbar-listener.ts';
import type { Profile } from '../../src/debug/profiler/profile.ts';

let builtIn: boolean | undefined;

/** True when the app's own hook table already has the profiler listeners. */
export function hookTablePlacesProfiler(): boolean {
  if (builtIn === undefined) {
    const probe = createApp({ env: 'dev', logSink: () => {}, environment: {} });
    builtIn = probe.kernel.hooks['kernel.terminate'].some((l) => l.id === 'ProfilerListener::onKernelTerminate');
  }
  return builtIn;
}

export interface TestApp extends App {
  logs: string[];
}

export function profiledApp(options: AppOptions = {}): TestApp {
  const logs: string[] = [];
  const base: AppOptions = { env: 'dev', logSink: (l) => logs.push(l), environment: {}, ...options };
  if (hookTablePlacesProfiler()) return Object.assign(createApp(base), { logs });
  const ref: { services?: AppServices } = {};
  const lazy = new Proxy({} as AppServices, { get: (_, key) => (ref.services as unknown as Record<PropertyKey, unknown>)[key] });
  const profiler = new ProfilerListener(lazy);
  const toolbar = new WebDebugToolbarListener(lazy);
  const listeners: ListenerRegistration[] = [
    { hook: 'kernel.exception', listener: profiler.onKernelException, placement: { index: 0 } } as ListenerRegistration,
    { hook: 'kernel.response', listener: profiler.onKernelResponse } as ListenerRegistration,
    { hook: 'kernel.response', listener: toolbar.onKernelResponse } as ListenerRegistration,
    { hook: 'kernel.terminate', listener: profiler.onKernelTerminate } as ListenerRegistration,
    ...(options.listeners ?? []),
  ];
  const app = createApp({ ...base, listeners });
  ref.services = app.services;
  return Object.assign(app, { logs });
}

export const ORIGIN = 'http://127.0.0.1:8000';

export function get(app: App, path: string, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(app.fetch(new Request(ORIGIN + path, init), { remoteAddress: '127.0.0.1' }));
}

export const tick = (ms = 5) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The stored profile of a response (waits for kernel.terminate). */
export async function profileOf(app: App, response: Response): Promise<Profile> {
  const token = response.headers.get('x-debug-token');
  if (!token) throw new Error(`response ${response.status} has no X-Debug-Token`);
  const profile = await app.services.profiler!.load(token, 2000);
  if (!profile) throw new Error(`profile ${token} not stored`);
  return profile;
}

import { HttpResponse as Res } from '../../src/index.ts';
import type { RouteDefinition } from '../../src/routing/route.ts';

const PAGE = (title: string) => `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;

/** Routes covering every toolbar case and every panel. */
export function fixtureRoutes(): RouteDefinition[] {
  return [
    { name: 'html', path: '/html', controller: function htmlPage() { return Res.html(PAGE('HTML')); } },
    { name: 'json', path: '/json', controller: function jsonApi() { return Res.json({ ok: true, html: '</body>' }); } },
    { name: 'redirect', path: '/redirect', controller: function redirectAway() { return Res.redirect('/html', 302); } },
    {
      name: 'attachment',
      path: '/attachment',
      controller: function download() { return Res.html(PAGE('Attachment'), 200, { 'content-disposition': 'attachment; filename="a.html"' }); },
    },
    {
      name: 'stream',
      path: '/stream',
      controller: function streamed() {
        const bytes = new TextEncoder().encode(PAGE('Stream'));
        return Res.stream(new ReadableStream({ start(c) { c.enqueue(bytes); c.close(); } }), 200, { 'content-type': 'text/html; charset=UTF-8' });
      },
    },
    { name: 'no_body_tag', path: '/fragment', controller: function fragment() { return Res.html('<div>no closing body tag</div>'); } },
    { name: 'gzip', path: '/gzip', controller: function gzipped() { return Res.html(PAGE('Gzip'), 200, { 'content-encoding': 'gzip' }); } },
    {
      name: 'two_bodies',
      path: '/two-bodies',
      controller: function twoBodies() { return Res.html('<html><body><script>var s = "</BODY>";</script><p>end</p></body></html>'); },
    },
    {
      name: 'with_length',
      path: '/with-length',
      controller: function withLength() {
        const body = PAGE('Länge ✓');
        return Res.html(body, 200, { 'content-length': String(new TextEncoder().encode(body).byteLength) });
      },
    },
    { name: 'bytes', path: '/bytes', controller: function bytesPage() { return new Res(new TextEncoder().encode(PAGE('Bytes é')), 200, { 'content-type': 'text/html; charset=UTF-8' }); } },
    { name: 'csp', path: '/csp', controller: function cspPage() { return Res.html(PAGE('CSP'), 200, { 'content-security-policy': "default-src 'self'; img-src *" }); } },
    { name: 'plain', path: '/plain', controller: function plainText() { return Res.text('</body>'); } },
    {
      name: 'boom',
      path: '/boom',
      controller: function boom() {
        throw new Error('Checkout failed', { cause: new TypeError('price is not a number') });
      },
    },
    {
      name: 'logs',
      path: '/logs',
      controller: function logging(request) {
        request.logger.debug('doctrine', 'SELECT 1');
        request.logger.info('app', 'Hello {name}', { name: 'Ada' });
        request.logger.warning('cache', 'Cache miss for {key}', { key: 'k1' });
        request.logger.error('payment', 'Payment failed', { api_key: 'sk_live_CANARY_APIKEY', order: 7 });
        return Res.html(PAGE('Logs'));
      },
    },
    {
      name: 'member',
      path: '/member/:id',
      controller: function memberArea(request) {
        request.attributes.set('member_id', request.attributes.getString('id'));
        request.attributes.set('irms_token', 'CANARYTOKENabcdefghijklmnopqrstuvwxyz');
        request.attributes.set('_firewall', 'main');
        return Res.html(PAGE('Member'));
      },
    },
    {
      name: 'login',
      path: '/login',
      methods: ['POST'],
      controller: async function login(request) {
        const session = request.getSession();
        session.set('cart', ['apple']);
        session.set('csrf_token', 'CANARY_SESSION_CSRF');
        const response = Res.json({ ok: true, user: request.request.get('username') });
        response.headers.setCookie('remember', 'CANARY_SET_COOKIE_VALUE', { httpOnly: true });
        return response;
      },
    },
    {
      name: 'raw',
      path: '/raw',
      methods: ['POST'],
      controller: async function rawBody(request) {
        const text = await request.text();
        return Res.text(`read ${text.length}`);
      },
    },
  ];
}

const dirs: string[] = [];
/** A fresh temporary directory; a test file that makes some calls `after(removeTempDirs)`. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'irms-profiler-'));
  dirs.push(dir);
  return dir;
}
/**
 * Removes the directories tempDir made. Not registered here: this module is also imported by child
 * processes (fixtures), where a node:test hook would start the test runner and print to their stdout.
 */
export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A complete profile (the file store reads back only what has a profile's shape). */
export function fakeProfile(token: string, extra: Partial<Profile> = {}): Profile {
  const time = Date.now();
  return {
    token,
    parent: null,
    children: [],
    time: Math.floor(time / 1000),
    datetime: new Date(time).toISOString(),
    ip: '127.0.0.1',
    method: 'GET',
    url: `${ORIGIN}/x`,
    status: 200,
    statusText: 'OK',
    route: null,
    controller: null,
    durationMs: 1,
    totalMs: 1,
    memory: null,
    request: {
      pathInfo: '/x',
      realMethod: 'GET',
      scheme: 'http',
      host: '127.0.0.1:8000',
      locale: null,
      format: null,
      isXmlHttpRequest: false,
      query: {},
      body: {},
      attributes: {},
      headers: {},
      cookies: [],
      contentType: '',
      content: null,
      contentLength: 0,
      contentTruncated: false,
    },
    response: { headers: {}, cookies: [], contentType: null },
    session: null,
    security: { token: null, memberId: null, firewall: null, authenticated: false },
    routing: { route: null, params: {}, controller: null, redirect: null },
    events: [],
    notCalledListeners: [],
    logs: [],
    droppedLogs: 0,
    exception: null,
    collectors: {},
    truncated: [],
    ...extra,
  };
}
