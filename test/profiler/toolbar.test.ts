/**
 * Toolbar injection (CONTRACT §6.5, symfony-reference §13): injected just before the last `</body>` of
 * main, non-XHR, non-redirect, non-attachment HTML responses (error pages included); every excluded
 * case leaves the body byte-identical; a Content-Length stays correct.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addCspNonce, lastBodyClose } from '../../src/debug/toolbar/toolbar.ts';
import { fetchSource } from '../../src/http/source.ts';
import { createApp, HttpResponse, listener, type ListenerRegistration } from '../../src/index.ts';
import { fixtureRoutes, get, ORIGIN, profiledApp, profileOf } from './support.ts';

const MARK = 'id="irms-wdt-';

async function pair(path: string, init: RequestInit = {}) {
  const on = profiledApp({ routes: fixtureRoutes() });
  const off = createApp({ env: 'prod', logSink: () => {}, environment: {}, routes: fixtureRoutes(), disallowRobotsIndexing: true });
  const a = await get(on, path, init);
  const b = await get(off, path, init);
  return { on: a, off: b, onBody: new Uint8Array(await a.arrayBuffer()), offBody: new Uint8Array(await b.arrayBuffer()) };
}

describe('toolbar injection', () => {
  test('injected before the last </body> of an HTML page, with the loader for /_wdt/<token>', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const r = await get(app, '/html');
    const token = r.headers.get('x-debug-token')!;
    const body = await r.text();
    assert.ok(body.includes(`${MARK}${token}"`));
    assert.ok(body.includes(`/_wdt/${token}`));
    assert.ok(body.includes(`href="/_profiler/${token}"`), 'a plain link to the profile, even without scripts');
    assert.ok(/<\/script>\n<\/body><\/html>$/.test(body), 'right before </body>');
    assert.equal(body.indexOf(MARK), body.lastIndexOf(MARK));
  });

  test('error pages get the toolbar too', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    for (const path of ['/nope', '/boom']) {
      const r = await get(app, path);
      assert.ok([404, 500].includes(r.status));
      assert.ok((await r.text()).includes(`${MARK}${r.headers.get('x-debug-token')}"`), path);
    }
  });

  test('error pages: the toolbar lands right before the last </body>, as a search would place it', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    for (const path of ['/nope', '/boom']) {
      const r = await get(app, path);
      const body = await r.text();
      const start = body.indexOf(`\n<div id="irms-wdt-${r.headers.get('x-debug-token')}"`);
      const end = body.lastIndexOf('</body>');
      assert.ok(start > 0 && end > start, path);
      const page = body.slice(0, start) + body.slice(end);
      assert.equal(lastBodyClose(page), start, path);
    }
  });

  test('an error page changed after it was rendered is searched for its last </body>', async () => {
    const append = listener<'kernel.response'>('Test::append', 'append', (event) => {
      if (typeof event.response.body === 'string') event.response.body += '<p>after</p></body>';
    });
    const app = profiledApp({ routes: fixtureRoutes(), listeners: [{ hook: 'kernel.response', listener: append, placement: { index: 0 } } as ListenerRegistration] });
    const body = await (await get(app, '/nope')).text();
    assert.match(body, /<!-- No route found for [^\n]* -->\n<p>after<\/p>\n<div id="irms-wdt-[\s\S]*<\/script>\n<\/body>$/);
  });

  test('the last </body> wins, whatever its case', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const body = await (await get(app, '/two-bodies')).text();
    assert.ok(body.startsWith('<html><body><script>var s = "</BODY>";</script><p>end</p>\n<div id="irms-wdt-'));
    assert.ok(body.endsWith('</script>\n</body></html>'));
    assert.equal(lastBodyClose('a</BoDy>b</body>c'), 9);
    assert.equal(lastBodyClose('no body'), -1);
  });

  for (const [name, path, init] of [
    ['JSON', '/json', {}],
    ['plain text', '/plain', {}],
    ['redirect', '/redirect', {}],
    ['attachment', '/attachment', {}],
    ['HTML without </body>', '/fragment', {}],
    ['Content-Encoding: gzip', '/gzip', {}],
    ['XHR (X-Requested-With: XMLHttpRequest)', '/html', { headers: { 'x-requested-with': 'XMLHttpRequest' } }],
  ] as [string, string, RequestInit][]) {
    test(`not injected: ${name} (body byte-identical, still profiled)`, async () => {
      const { on, onBody, offBody } = await pair(path, { ...init, redirect: 'manual' });
      assert.match(on.headers.get('x-debug-token') ?? '', /^[0-9a-f]{6}$/, 'profiled');
      assert.deepEqual(onBody, offBody);
      assert.ok(!new TextDecoder().decode(onBody).includes(MARK));
    });
  }

  test('regression: HEAD of a page that gets the toolbar declared the length without it (HEAD keeps GET\'s headers, no body)', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const shown = (r: Response) =>
      [...r.headers]
        .filter(([k]) => !['date', 'expires', 'x-debug-token', 'x-debug-token-link', 'content-length'].includes(k))
        .map(([k, v]) => [k, v.replace(/'nonce-[^']+'/g, "'nonce-…'")]);
    for (const path of ['/html', '/with-length', '/csp']) {
      const get_ = await get(app, path);
      const sent = new Uint8Array(await get_.arrayBuffer());
      assert.ok(new TextDecoder().decode(sent).includes(MARK), `${path}: GET has the toolbar`);
      const head = await get(app, path, { method: 'HEAD' });
      assert.equal(head.status, get_.status, path);
      assert.match(head.headers.get('x-debug-token') ?? '', /^[0-9a-f]{6}$/, `${path}: HEAD is profiled`);
      assert.equal((await head.arrayBuffer()).byteLength, 0, `${path}: no body`);
      assert.equal(head.headers.get('content-length'), String(sent.byteLength), `${path}: GET's length, toolbar included`);
      assert.deepEqual(shown(head), shown(get_), `${path}: GET's other headers`);
    }
    // An error page names the request's method, so HEAD's page is a few bytes longer than GET's: the
    // toolbar (some 3.5 KB) is in both lengths.
    const getError = (await get(app, '/nope').then((r) => r.arrayBuffer())).byteLength;
    const headError = Number((await get(app, '/nope', { method: 'HEAD' })).headers.get('content-length'));
    assert.ok(Math.abs(headError - getError) < 64, `error page: HEAD declares ${headError}, GET sends ${getError}`);
    const csp = await get(app, '/csp', { method: 'HEAD' });
    assert.match(csp.headers.get('content-security-policy') ?? '', /'nonce-[^']+'/, 'the nonce GET\'s toolbar script needs is declared too');
  });

  test('not injected: streamed bodies stay streams', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const handled = await app.handle(fetchSource(new Request(`${ORIGIN}/stream`)));
    assert.ok(handled.response.body instanceof ReadableStream);
    const text = await new Response(handled.response.body).text();
    assert.ok(!text.includes(MARK) && text.includes('</body>'));
    handled.terminate?.();
  });

  test('not injected: sub-requests', async () => {
    const { WebDebugToolbarListener, toolbarExclusion } = await import('../../src/debug/toolbar/toolbar-listener.ts');
    const { KernelRequest } = await import('../../src/http/request.ts');
    const { HttpResponse } = await import('../../src/http/response.ts');
    const { ResponseEvent } = await import('../../src/kernel/events.ts');
    const app = profiledApp({ routes: fixtureRoutes() });
    const sub = new KernelRequest(fetchSource(new Request(`${ORIGIN}/x`)), await captureSettings(), false);
    const response = HttpResponse.html('<html><body></body></html>');
    response.headers.set('x-debug-token', 'abcdef');
    assert.equal(toolbarExclusion(sub, response), 'sub-request');
    const listener = new WebDebugToolbarListener(app.services);
    await listener.onKernelResponse.call(new ResponseEvent(sub, response));
    assert.equal(response.body, '<html><body></body></html>');
    assert.ok(response.headers.get('x-debug-token-link')?.endsWith('/_profiler/abcdef'), 'the link is set for any request type');
  });

  test('Content-Length, when set, stays correct (multi-byte characters included)', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const handled = await app.handle(fetchSource(new Request(`${ORIGIN}/with-length`)));
    const body = handled.response.bodyText()!;
    assert.ok(body.includes(MARK));
    assert.equal(handled.response.headers.get('content-length'), String(new TextEncoder().encode(body).byteLength));
    handled.terminate?.();
    const r = await get(app, '/with-length');
    const bytes = new Uint8Array(await r.arrayBuffer());
    assert.equal(r.headers.get('content-length'), String(bytes.byteLength));
  });

  test('byte bodies are spliced as bytes (never re-encoded)', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const r = await get(app, '/bytes');
    const text = await r.text();
    assert.ok(text.includes('Bytes é') && text.includes(MARK));
  });

  test('a page CSP gets a nonce for the snippet; directives that allow inline code are left alone', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const r = await get(app, '/csp');
    const csp = r.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce, csp);
    const body = await r.text();
    assert.ok(body.includes(`<script nonce="${nonce}">`) && body.includes(`<style nonce="${nonce}">`));
    assert.equal(addCspNonce("default-src 'self'; img-src *", 'N'), "default-src 'self'; img-src *; script-src 'self' 'nonce-N'; style-src 'self' 'nonce-N'");
    assert.equal(addCspNonce("script-src 'self' 'unsafe-inline'; style-src 'self'", 'N'), "script-src 'self' 'unsafe-inline'; style-src 'self' 'nonce-N'");
    assert.equal(addCspNonce("img-src *", 'N'), 'img-src *');
  });

  test('regression: each of several Content-Security-Policy headers lets the snippet run', async () => {
    const app = profiledApp({
      routes: [
        {
          name: 'two_policies',
          path: '/two-policies',
          controller: function twoPolicies() {
            const r = HttpResponse.html('<html><body><p>two</p></body></html>');
            r.headers.append('content-security-policy', "img-src 'self'");
            r.headers.append('content-security-policy', "default-src 'self'");
            return r;
          },
        },
      ],
    });
    const r = await get(app, '/two-policies');
    const body = await r.text();
    const nonce = /<script nonce="([^"]+)">/.exec(body)?.[1];
    assert.ok(nonce, 'the toolbar was injected with a nonce');
    // The browser splits the list on commas and enforces each policy: the second must allow the nonce too.
    const policies = (r.headers.get('content-security-policy') ?? '').split(',').map((p) => p.trim());
    assert.deepEqual(policies, ["img-src 'self'", `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'`]);
  });

  test('regression: an inline page whose file name contains "attachment" still gets the toolbar', async () => {
    const page = '<html><body><h1>Report</h1></body></html>';
    const disposition = (value: string) => () => HttpResponse.html(page, 200, { 'content-disposition': value });
    const app = profiledApp({
      routes: [
        { name: 'inline', path: '/inline', controller: disposition('inline; filename="attachment-list.html"') },
        { name: 'download', path: '/download', controller: disposition('Attachment ; filename="report.html"') },
      ],
    });
    assert.ok((await (await get(app, '/inline')).text()).includes(MARK), 'inline: toolbar injected');
    assert.equal(await (await get(app, '/download')).text(), page, 'attachment: body untouched');
  });

  test('the fragment shows status, route, time, memory, log and error counts, member and profile links', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const logs = await profileOf(app, await get(app, '/logs'));
    const html = await (await get(app, `/_wdt/${logs.token}`)).text();
    assert.ok(html.includes('data-irms-wdt="status"') && html.includes('>200<') && html.includes('@ logs'));
    assert.match(html, /data-irms-wdt="time"[^>]*><span class="irms-wdt-value">[\d.]+<\/span><span class="irms-wdt-label">(ms|s)</);
    assert.match(html, /data-irms-wdt="memory"[^>]*><span class="irms-wdt-value">[\d.]+<\/span><span class="irms-wdt-label">(MiB|GiB|KiB)</);
    assert.match(html, new RegExp(`data-irms-wdt="logs"[\\s\\S]*?<span class="irms-wdt-badge">${logs.logs.length}</span><span class="irms-wdt-badge irms-wdt-badge-red" data-irms-wdt="errors">1</span>`));
    assert.ok(html.includes(`href="/_profiler/${logs.token}"`) && html.includes(`href="/_profiler/${logs.token}?panel=logs"`));
    const member = await profileOf(app, await get(app, '/member/7'));
    assert.match(await (await get(app, `/_wdt/${member.token}`)).text(), /data-irms-wdt="member"[^>]*><span class="irms-wdt-label">Member<\/span><span class="irms-wdt-value">7</);
    assert.equal((await get(app, '/_wdt/empty')).status, 200);
    const unknown = await get(app, '/_wdt/000000');
    assert.equal(unknown.status, 404);
    assert.equal(await unknown.text(), '');
    const bad = await get(app, '/_wdt/..%2F..%2Fetc');
    assert.equal(bad.status, 404);
  });
});

/** The request settings an app gives its requests (read from a real request). */
async function captureSettings() {
  let settings: unknown;
  const { listener } = await import('../../src/kernel/hooks.ts');
  const probe = profiledApp({
    routes: fixtureRoutes(),
    listeners: [{ hook: 'kernel.request', placement: { index: 0 }, listener: listener<'kernel.request'>('Probe::settings', 'probe', (e) => void (settings = e.request.settings)) }],
  });
  await get(probe, '/html');
  return settings as import('../../src/http/request.ts').RequestSettings;
}

test('regression: a route whose _format is empty got the toolbar; WebDebugToolbarListener injects only when getRequestFormat() is html', async () => {
  const page = () => HttpResponse.html('<html><body><p>page</p></body></html>');
  const app = profiledApp({
    routes: [
      { name: 'empty_format', path: '/empty-format', defaults: { _format: '' }, controller: page },
      { name: 'json_format', path: '/json-format', defaults: { _format: 'json' }, controller: page },
      { name: 'html_format', path: '/html-format', defaults: { _format: 'html' }, controller: page },
      { name: 'no_format', path: '/no-format', controller: page },
    ],
  });
  for (const [path, injected] of [['/empty-format', false], ['/json-format', false], ['/html-format', true], ['/no-format', true]] as const) {
    const body = await (await get(app, path)).text();
    assert.equal(body.includes(MARK), injected, path);
  }
});

test('regression: an X-Content-Security-Policy (the legacy header) got no nonce, so the toolbar could not run there; ContentSecurityPolicyHandler updates it too', async () => {
  const app = profiledApp({
    routes: [
      {
        name: 'legacy_csp',
        path: '/legacy-csp',
        controller: () => HttpResponse.html('<html><body><p>legacy</p></body></html>', 200, { 'x-content-security-policy': "default-src 'self'" }),
      },
    ],
  });
  const r = await get(app, '/legacy-csp');
  const nonce = /<script nonce="([^"]+)">/.exec(await r.text())?.[1];
  assert.ok(nonce, 'the toolbar was injected with a nonce');
  const scriptSrc = (r.headers.get('x-content-security-policy') ?? '').split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src '));
  assert.ok(scriptSrc?.includes(`'nonce-${nonce}'`), scriptSrc);
});
