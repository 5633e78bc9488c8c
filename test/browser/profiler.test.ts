/**
 * The profiler and the debug toolbar in a real browser: headless Chromium (Debian's `chromium`)
 * driven by playwright-core against the app served by `serve()` on a loopback port. Opens a 404,
 * clicks the toolbar, lands on the profile, switches every panel, filters the logs and opens the
 * search list. Screenshots of the toolbar and of every panel land in test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { openBrowserSession, SHOTS, watchPage, type BrowserSession } from '../support/browser.ts';
import { HttpResponse, listener } from '../../src/index.ts';
import { PANELS } from '../../src/debug/profiler/views/layout.ts';
import { profiledApp } from '../profiler/support.ts';


describe('profiler and toolbar in headless Chromium', { timeout: 90_000 }, () => {
  let session: BrowserSession | undefined;
  let browser: Browser;
  let origin: string;

  before(async () => {
    const app = profiledApp({
      routes: [
        {
          name: 'member_page',
          path: '/members/:id',
          controller: function memberPage(request) {
            request.attributes.set('member_id', request.attributes.getString('id'));
            request.attributes.set('irms_token', 'tok_live_0123456789abcdef0123456789');
            request.attributes.set('_firewall', 'main');
            request.logger.error('app', 'Payment provider answered {code}', { code: 502, password: 'hunter2' });
            // Names its own icon: the profiler's pages name one, so the browser's one /favicon.ico
            // request (a 404, profiled) would otherwise come right after this page and be "newest".
            return HttpResponse.html(`<!DOCTYPE html><html><head><title>Member</title><link rel="icon" href="data:," /></head><body><h1>Member ${request.attributes.getString('id')}</h1><p>Profile page.</p></body></html>`);
          },
        },
        {
          name: 'cart',
          path: '/cart',
          controller: function cartPage(request) {
            const session = request.getSession();
            session.set('cart', [{ sku: 'TEA-1', qty: 2 }]);
            session.set('_csrf_token', 'csrf-secret-value-1234567890');
            return HttpResponse.html('<!DOCTYPE html><html><head><title>Cart</title></head><body><h1>Cart</h1></body></html>');
          },
        },
        {
          name: 'strict_page',
          path: '/strict',
          controller: function strictPage() {
            return HttpResponse.html('<!DOCTYPE html><html><head><title>Strict</title></head><body><h1>Strict CSP</h1></body></html>', 200, {
              'content-security-policy': "default-src 'self'",
            });
          },
        },
      ],
      listeners: [
        {
          hook: 'kernel.request',
          placement: { index: 0 },
          listener: listener<'kernel.request'>('VisitLogger::onKernelRequest', 'test visit logging', async (event) => {
            event.request.logger.info('app', 'Visitor asked for {path}', { path: event.request.pathInfo });
            event.request.logger.warning('cache', 'Cache {pool} is cold', { pool: 'pages' });
            await new Promise((resolve) => setTimeout(resolve, 3));
          }),
        },
      ],
    });
    session = await openBrowserSession(app);
    ({ origin, browser } = session);
  });

  after(async () => {
    await session?.close();
  });

  function watch(page: Page): string[] {
    return watchPage(page, origin);
  }

  test('404 → toolbar → profile → every panel → search', async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    const problems = watch(page);

    const first = await page.goto(`${origin}/no-such-page?q=1`);
    assert.equal(first?.status(), 404);
    const token = first!.headers()['x-debug-token'];
    assert.match(token ?? '', /^[0-9a-f]{6}$/);
    assert.equal(first!.headers()['x-debug-token-link'], `${origin}/_profiler/${token}`);

    const toolbar = page.locator(`#irms-wdt-${token}[data-irms-wdt-loaded="1"]`);
    await toolbar.waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal((await page.locator('[data-irms-wdt="status"] .irms-wdt-value').textContent())?.trim(), '404');
    assert.ok((await page.locator('[data-irms-wdt="exception"]').textContent())?.includes('NotFoundHttpException'));
    assert.match((await page.locator('[data-irms-wdt="time"]').textContent()) ?? '', /\d/);
    assert.match((await page.locator('[data-irms-wdt="memory"]').textContent()) ?? '', /\d/);
    assert.match((await page.locator('[data-irms-wdt="errors"]').textContent()) ?? '', /^\d+$/);
    await page.screenshot({ path: `${SHOTS}profiler-00-404-with-toolbar.png` });
    await page.locator('.irms-wdt-bar').screenshot({ path: `${SHOTS}profiler-01-toolbar.png` });

    // Hide and show again (state kept in localStorage).
    await page.locator('.irms-wdt-bar [data-irms-wdt-toggle]').click();
    await page.locator('.irms-wdt-mini button').waitFor({ state: 'visible' });
    await page.locator('.irms-wdt-mini button').click();
    await page.locator('.irms-wdt-bar').waitFor({ state: 'visible' });

    await Promise.all([page.waitForURL(`${origin}/_profiler/${token}`), page.locator('[data-irms-wdt="token"]').click()]);
    assert.equal(await page.title(), `Exception · ${token} · irms-web Profiler`);
    assert.equal(await page.locator('#pf-panel').getAttribute('data-panel'), 'exception');

    for (const [i, panel] of PANELS.entries()) {
      await Promise.all([page.waitForLoadState('load'), page.locator(`.pf-menu li[data-panel="${panel}"] a`).click()]);
      await page.locator(`#pf-panel[data-panel="${panel}"]`).waitFor();
      assert.ok(await page.locator(`.pf-menu li.pf-active[data-panel="${panel}"]`).count(), `${panel} is the active menu entry`);
      if (panel === 'performance') {
        assert.ok((await page.locator('svg.pf-waterfall .pf-wf-call').count()) >= 4, 'one bar per listener call');
        assert.ok((await page.locator('svg.pf-waterfall .pf-wf-group[data-hook="kernel.exception"]').count()) === 1, 'grouped by hook');
      }
      if (panel === 'exception') {
        await page.frameLocator('iframe.pf-iframe').locator('body').waitFor();
      }
      if (panel === 'routing') {
        assert.ok((await page.locator('tr[data-outcome="path does not match"]').count()) > 0);
      }
      await page.screenshot({ path: `${SHOTS}profiler-${String(i + 2).padStart(2, '0')}-panel-${panel}.png`, fullPage: true });
    }

    // Logs: filter by level (the select submits on change) and by channel.
    await page.locator('.pf-menu li[data-panel="logs"] a').click();
    await page.locator('#pf-panel[data-panel="logs"]').waitFor();
    const all = await page.locator('table.pf-logs tbody tr').count();
    await Promise.all([page.waitForURL(/level=warning/), page.locator('select[name="level"]').selectOption('warning')]);
    const warnings = await page.locator('table.pf-logs tbody tr').count();
    assert.ok(warnings > 0 && warnings < all, `level filter: ${warnings} of ${all}`);
    for (const level of await page.locator('table.pf-logs tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-level')))) {
      assert.ok(['WARNING', 'ERROR', 'CRITICAL', 'ALERT', 'EMERGENCY'].includes(level ?? ''), String(level));
    }
    await Promise.all([page.waitForURL(/channel=cache/), page.locator('select[name="channel"]').selectOption('cache')]);
    const channels = await page.locator('table.pf-logs tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-channel')));
    assert.deepEqual([...new Set(channels)], ['cache']);
    await page.screenshot({ path: `${SHOTS}profiler-10-logs-filtered.png`, fullPage: true });

    // A second request, then the search list shows both, newest first.
    const second = await page.goto(`${origin}/members/42`);
    assert.equal(second?.status(), 200);
    await page.locator('[data-irms-wdt-loaded="1"]').waitFor();
    assert.equal((await page.locator('[data-irms-wdt="member"] .irms-wdt-value').textContent())?.trim(), '42');
    await page.locator('.irms-wdt-bar').screenshot({ path: `${SHOTS}profiler-11-toolbar-200.png` });
    const secondToken = second!.headers()['x-debug-token'];

    await Promise.all([page.waitForURL(/\/_profiler\/search$/), page.locator('.irms-wdt-bar a[title="Search earlier requests"]').click()]);
    await page.screenshot({ path: `${SHOTS}profiler-12-search-form.png`, fullPage: true });
    await Promise.all([page.waitForURL(/search\/results/), page.locator('#pf-search button[type="submit"]').click()]);
    const tokens = await page.locator('table.pf-search-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-token')));
    assert.equal(tokens[0], secondToken, 'newest first');
    assert.ok(tokens.includes(token!));
    assert.ok(!(await page.content()).includes('/_profiler/search</a>'), 'profiler pages are not listed');
    await page.screenshot({ path: `${SHOTS}profiler-13-search-results.png`, fullPage: true });

    // Filter the list by status.
    await page.locator('#pf-search input[name="status"]').fill('404');
    await Promise.all([page.waitForURL(/status=404/), page.locator('#pf-search button[type="submit"]').click()]);
    const filtered = await page.locator('table.pf-search-table tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-token'), r.querySelector('td')?.textContent?.trim()]));
    assert.ok(filtered.some(([t]) => t === token), 'the 404 is listed');
    assert.ok(filtered.every(([, status]) => status === '404'), 'only 404s (the browser also asked for /favicon.ico)');
    assert.ok(!filtered.some(([t]) => t === secondToken));

    // The security panel of the member page shows the member and a masked token.
    await page.goto(`${origin}/_profiler/${secondToken}?panel=security`);
    const security = await page.locator('#pf-panel').textContent();
    assert.ok(security?.includes('42') && security.includes('main'));
    assert.ok(!security?.includes('0123456789abcdef'), 'irms_token masked');
    await page.screenshot({ path: `${SHOTS}profiler-14-panel-security-member.png`, fullPage: true });

    // A session: its attributes (masked) on the session panel.
    const cart = await page.goto(`${origin}/cart`);
    await page.locator('[data-irms-wdt-loaded="1"]').waitFor();
    await page.goto(`${origin}/_profiler/${cart!.headers()['x-debug-token']}?panel=session`);
    const session = (await page.locator('#pf-panel').textContent()) ?? '';
    assert.ok(session.includes('TEA-1') && !session.includes('csrf-secret-value'));
    await page.screenshot({ path: `${SHOTS}profiler-15-panel-session-with-data.png`, fullPage: true });

    // A page with a strict Content-Security-Policy still shows the toolbar (nonce).
    await page.goto(`${origin}/strict`);
    await page.locator('[data-irms-wdt-loaded="1"] .irms-wdt-bar').waitFor({ state: 'visible', timeout: 10_000 });

    assert.deepEqual(problems, []);
    await page.close();
  });
});
