/**
 * The profiler's routes (CONTRACT §6.4): the JSON profile, unknown tokens, `latest`, every panel, the
 * search (filters, newest first), the exception page, and escaping of everything a client sent.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PANELS } from '../../src/debug/profiler/views/layout.ts';
import { fixtureRoutes, get, ORIGIN, profiledApp, profileOf, tick } from './support.ts';

const JSON_ACCEPT = { headers: { accept: 'application/json' } };

describe('profiler pages', () => {
  test('GET /_profiler/<token> with Accept: application/json answers the profile', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const r = await get(app, '/boom?x=1');
    const token = r.headers.get('x-debug-token')!;
    await tick(10);
    const j = await get(app, `/_profiler/${token}`, JSON_ACCEPT);
    assert.equal(j.status, 200);
    assert.match(j.headers.get('content-type') ?? '', /^application\/json/);
    const p = await j.json();
    assert.equal(p.token, token);
    assert.equal(p.method, 'GET');
    assert.equal(p.url, `${ORIGIN}/boom?x=1`);
    assert.equal(p.status, 500);
    assert.equal(typeof p.time, 'number');
    assert.ok(Math.abs(p.time - Date.now() / 1000) < 60);
    assert.equal(p.ip, '127.0.0.1');
    assert.equal(p.route, 'boom');
    assert.ok(Array.isArray(p.events) && p.events.length > 3);
    for (const e of p.events) {
      assert.deepEqual(Object.keys(e).filter((k) => ['hook', 'listener', 'role', 'durationMs'].includes(k)).sort(), ['durationMs', 'hook', 'listener', 'role']);
      assert.equal(typeof e.durationMs, 'number');
    }
    assert.equal(p.events[0].hook, 'kernel.request');
    assert.ok(p.logs.length > 0);
    for (const l of p.logs) {
      assert.equal(typeof l.level_name, 'string');
      assert.equal(typeof l.channel, 'string');
      assert.equal(typeof l.message, 'string');
      assert.equal(typeof l.context, 'object');
    }
    assert.deepEqual({ class: p.exception.class, message: p.exception.message }, { class: 'Error', message: 'Checkout failed' });
    assert.deepEqual({ class: p.exception.previous.class, message: p.exception.previous.message, previous: p.exception.previous.previous }, { class: 'TypeError', message: 'price is not a number', previous: null });

    const ok = await profileOf(app, await get(app, '/html'));
    assert.equal((await (await get(app, `/_profiler/${ok.token}`, JSON_ACCEPT)).json()).exception, null);
    const latest = await (await get(app, '/_profiler/latest', JSON_ACCEPT)).json();
    assert.equal(latest.token, ok.token);
  });

  test('unknown tokens: "Token not found" page (200), JSON 404, toolbar 404 with an empty body', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    for (const token of ['abcdef', 'nothex', '<img src=x onerror=alert(1)>', '..%5C..%5Cwin.ini']) {
      const r = await get(app, `/_profiler/${token}`);
      assert.equal(r.status, 200, token);
      const body = await r.text();
      assert.ok(body.includes('<h2>Token not found</h2>'), token);
      const shown = decodeURIComponent(token).replace(/</g, '&lt;').replace(/>/g, '&gt;');
      assert.ok(body.includes(`Token &quot;${shown}&quot; not found.`) || body.includes(`Token "${shown}" not found.`), `${token}: ${body.slice(body.indexOf('Token not found'), body.indexOf('Token not found') + 120)}`);
      assert.ok(!body.includes('<img src=x'));
      const j = await get(app, `/_profiler/${token}`, JSON_ACCEPT);
      assert.equal(j.status, 404);
    }
    // An encoded slash cannot be part of a `{token}` (Symfony's [^/]++ on the decoded path): no profiler route at all.
    const traversal = await get(app, '/_profiler/..%2F..%2Fetc%2Fpasswd');
    assert.equal(traversal.status, 404);
    assert.ok(!(await traversal.text()).includes('Token not found'));
    const wdt = await get(app, '/_wdt/abcdef');
    assert.equal(wdt.status, 404);
    assert.equal(await wdt.text(), '');
  });

  test('`latest` with no profiles says so', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const body = await (await get(app, '/_profiler/latest')).text();
    assert.ok(body.includes('<h2>There are no profiles</h2>') && body.includes('No profiles found.'));
  });

  test('every panel renders; the default is request, or exception when there is one; unknown panel → 404', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const ok = await profileOf(app, await get(app, '/logs'));
    const boom = await profileOf(app, await get(app, '/boom'));
    for (const p of [ok, boom]) {
      for (const panel of PANELS) {
        const r = await get(app, `/_profiler/${p.token}?panel=${panel}`);
        assert.equal(r.status, 200, `${panel} of ${p.token}`);
        assert.match(r.headers.get('content-security-policy') ?? '', /script-src 'nonce-/);
        assert.equal(r.headers.get('cache-control'), 'no-store, private');
        assert.ok((await r.text()).includes(`data-panel="${panel}"`));
      }
    }
    assert.ok((await (await get(app, `/_profiler/${ok.token}`)).text()).includes('<main class="pf-main" id="pf-panel" data-panel="request">'));
    assert.ok((await (await get(app, `/_profiler/${boom.token}`)).text()).includes('<main class="pf-main" id="pf-panel" data-panel="exception">'));
    const redirect = await profileOf(app, await get(app, '/redirect', { redirect: 'manual' }));
    assert.ok((await (await get(app, `/_profiler/${redirect.token}`)).text()).includes('Redirects to <span class="pf-mono">/html</span>'));
    const router = await (await get(app, `/_profiler/${ok.token}/router`)).text();
    assert.ok(router.includes('data-panel="routing"'));
    const unknown = await get(app, `/_profiler/${ok.token}?panel=nope`);
    assert.equal(unknown.status, 404);
    assert.ok((await unknown.text()).includes(`Panel &quot;nope&quot; is not available for token &quot;${ok.token}&quot;.`));
  });

  test('performance panel: an SVG waterfall with one bar per listener call, grouped by hook', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const p = await profileOf(app, await get(app, '/html'));
    const html = await (await get(app, `/_profiler/${p.token}?panel=performance`)).text();
    assert.ok(html.includes('<svg class="pf-waterfall"'));
    assert.equal(html.split('class="pf-wf-call"').length - 1, p.events.length + 1, 'one bar per listener call, plus the controller');
    const hooks = [...new Set(p.events.map((e) => e.hook))];
    for (const hook of hooks) assert.ok(html.includes(`data-hook="${hook}"`), hook);
    assert.ok(html.includes('data-hook="controller"'));
  });

  test('events panel lists called listeners per hook with durations, and those not called', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const p = await profileOf(app, await get(app, '/nope'));
    const html = await (await get(app, `/_profiler/${p.token}?panel=events`)).text();
    assert.ok(html.includes('id="hook-kernel.exception"') && html.includes('id="hook-kernel.request"'));
    for (const e of p.events) assert.ok(html.includes(e.listener), e.listener);
    assert.ok(html.includes('Not called listeners'));
    assert.ok(p.notCalledListeners.some((l) => l.hook === 'kernel.controller'), 'a 404 never reaches kernel.controller');
  });

  test('logs panel filters by level and by channel', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const p = await profileOf(app, await get(app, '/logs'));
    const rows = async (q: string) => [...(await (await get(app, `/_profiler/${p.token}?panel=logs${q}`)).text()).matchAll(/<tr class="pf-row-\w+" data-level="(\w+)" data-channel="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
    const all = await rows('');
    assert.ok(all.includes('DEBUG doctrine') && all.includes('INFO app') && all.includes('WARNING cache') && all.includes('ERROR payment'));
    assert.deepEqual(await rows('&level=warning'), all.filter((r) => /^(WARNING|ERROR|CRITICAL)/.test(r)));
    assert.deepEqual(await rows('&channel=cache'), ['WARNING cache']);
    assert.deepEqual(await rows('&level=error&channel=payment'), ['ERROR payment']);
    assert.deepEqual(await rows('&level=error&channel=cache'), []);
  });

  test('routing panel: route table, matched route, why earlier routes did not match', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const p = await profileOf(app, await get(app, '/member/9'));
    const html = await (await get(app, `/_profiler/${p.token}/router`)).text();
    const outcomes = [...html.matchAll(/<tr(?: class="[^"]*")? data-outcome="([^"]+)"><td>\d+<\/td><td class="pf-mono">([^<]+)</g)].map((m) => [m[2], m[1]]);
    assert.deepEqual(outcomes.find(([name]) => name === 'member'), ['member', 'match']);
    assert.deepEqual(outcomes.find(([name]) => name === 'html'), ['html', 'path does not match']);
    assert.deepEqual(outcomes.find(([name]) => name === 'login'), ['login', 'not examined']);
    assert.equal(outcomes.length, app.router.routes.length);
  });

  test('search: form, redirect to results, filters by ip, method, status, url and time, newest first', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const t = (r: Response) => r.headers.get('x-debug-token')!;
    const a = t(await app.fetch(new Request(`${ORIGIN}/html`), { remoteAddress: '10.0.0.1' }));
    const b = t(await app.fetch(new Request(`${ORIGIN}/json`, { method: 'POST' }), { remoteAddress: '10.0.0.2' }));
    const c = t(await app.fetch(new Request(`${ORIGIN}/nope`), { remoteAddress: '10.0.0.1' }));
    const d = t(await app.fetch(new Request(`${ORIGIN}/html?page=2`), { remoteAddress: '10.0.0.3' }));
    await tick(20);
    const list = async (q: string) => [...(await (await get(app, `/_profiler/empty/search/results${q}`)).text()).matchAll(/<tr data-token="([0-9a-f]{6})"/g)].map((m) => m[1]);
    assert.deepEqual(await list(''), [d, c, b, a], 'newest first');
    assert.deepEqual(await list('?ip=10.0.0.1'), [c, a]);
    assert.deepEqual(await list('?method=post'), [b]);
    assert.deepEqual(await list('?status=404'), [c]);
    assert.deepEqual(await list('?url=%2Fhtml'), [d, a]);
    assert.deepEqual(await list('?limit=2'), [d, c]);
    const now = Math.floor(Date.now() / 1000);
    assert.deepEqual(await list(`?start=${now - 60}&end=${now + 60}`), [d, c, b, a]);
    assert.deepEqual(await list(`?end=${now - 3600}`), []);
    assert.deepEqual(await list('?start=2999-01-01'), []);

    const form = await get(app, '/_profiler/search');
    assert.equal(form.status, 200);
    assert.ok((await form.text()).includes('id="pf-search"'));
    const go = await get(app, '/_profiler/search?ip=10.0.0.1&method=&status=', { redirect: 'manual' });
    assert.equal(go.status, 302);
    assert.equal(go.headers.get('location'), `/_profiler/${c}/search/results?ip=10.0.0.1`);
    const byToken = await get(app, `/_profiler/search?token=${a}`, { redirect: 'manual' });
    assert.equal(byToken.headers.get('location'), `/_profiler/${a}`);
    const none = await get(app, '/_profiler/search?url=zzz', { redirect: 'manual' });
    assert.equal(none.headers.get('location'), '/_profiler/empty/search/results?url=zzz');
    const home = await get(app, '/_profiler/', { redirect: 'manual' });
    assert.equal(home.status, 302);
    assert.equal(home.headers.get('location'), '/_profiler/empty/search/results?limit=10');
    const json = await (await get(app, '/_profiler/empty/search/results?ip=10.0.0.1', JSON_ACCEPT)).json();
    assert.deepEqual(json.results.map((s: { token: string }) => s.token), [c, a]);
  });

  test('the exception page of a request, rebuilt from its (masked) profile', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const p = await profileOf(app, await get(app, '/boom'));
    const r = await get(app, `/_profiler/${p.token}/exception`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-security-policy') ?? '', /^sandbox /);
    const html = await r.text();
    assert.ok(html.includes('Checkout failed') && html.includes('price is not a number'));
    assert.ok(html.includes('/boom'), 'shows the profiled request, not the profiler page');
    assert.ok(!html.includes('/_profiler/'), 'nothing from the profiler request');
    const ok = await profileOf(app, await get(app, '/html'));
    assert.ok((await (await get(app, `/_profiler/${ok.token}/exception`)).text()).includes('No exception was thrown'));
  });

  test('everything a client sent is escaped on every page', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const payloads = ['"><script>alert(1)</script>', "'><img src=x onerror=alert(1)>", '</title><svg onload=alert(1)>'];
    const r = await app.fetch(
      new Request(`${ORIGIN}/${encodeURIComponent(payloads[0]!)}?q=${encodeURIComponent(payloads[1]!)}`, {
        headers: { referer: payloads[2]!, 'user-agent': payloads[0]!, cookie: `${'x'}=${encodeURIComponent(payloads[1]!)}`, 'x-custom': payloads[1]! },
      }),
      { rawTarget: `/<script>alert(1)</script>?q=${payloads[1]}` },
    );
    const p = await profileOf(app, r);
    const pages = [...PANELS.map((panel) => `/_profiler/${p.token}?panel=${panel}`), `/_wdt/${p.token}`, `/_profiler/${p.token}/exception`, '/_profiler/empty/search/results'];
    assert.ok((await (await get(app, `/_profiler/${p.token}?panel=request`)).text()).includes('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'), 'the payload is shown, escaped');
    for (const page of pages) {
      const html = await (await get(app, page)).text();
      assert.ok(!/<script>alert|<img src=x|<svg onload/i.test(html), page);
    }
  });

  test('regression: a search value cut at its length bound never halves an emoji (no 500 on the redirect)', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    // 1 + 2 × 40 UTF-16 units: the ip bound (64) falls between the halves of the 32nd emoji.
    const ip = `a${'😀'.repeat(40)}`;
    const r = await get(app, `/_profiler/search?ip=${encodeURIComponent(ip)}`, { redirect: 'manual' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), `/_profiler/empty/search/results?ip=${encodeURIComponent(`a${'😀'.repeat(31)}`)}`);
    const url = `a${'😀'.repeat(300)}`;
    const byUrl = await get(app, `/_profiler/search?url=${encodeURIComponent(url)}`, { redirect: 'manual' });
    assert.equal(byUrl.status, 302);
    assert.equal(byUrl.headers.get('location'), `/_profiler/empty/search/results?url=${encodeURIComponent(`a${'😀'.repeat(249)}`)}`);
  });
});

test('regression: a search for status=4041 listed the 404s (the value was cut to three characters before it was checked); it is no status, so the filter is left out', async () => {
  const app = profiledApp({ routes: fixtureRoutes() });
  const t = (r: Response) => r.headers.get('x-debug-token')!;
  const ok = t(await get(app, '/html'));
  const missing = t(await get(app, '/nope'));
  await tick(20);
  const list = async (q: string) => [...(await (await get(app, `/_profiler/empty/search/results${q}`)).text()).matchAll(/<tr data-token="([0-9a-f]{6})"/g)].map((m) => m[1]);
  assert.deepEqual(await list('?status=404'), [missing]);
  assert.deepEqual(await list('?status=4041'), [missing, ok]);
});
