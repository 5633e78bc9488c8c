/**
 * The toolbar and the profiler pages in headless Chromium, for what only a browser shows: the fixed
 * bar must not cover the page's last content (its clearer), a page whose CSP uses `script-src-elem` /
 * `style-src-elem` must still run the toolbar, and the profiler's pages must not make the browser ask
 * for `/favicon.ico` (which would be profiled and become "Latest").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, openBrowserSession, SHOTS, watchPage, type BrowserSession } from '../support/browser.ts';
import { HttpResponse } from '../../src/index.ts';
import { profiledApp } from '../profiler/support.ts';

const TALL = `<!DOCTYPE html><html><head><title>Tall</title></head><body style="margin:0">
<div style="height:2000px">tall content</div><button id="last" type="button">last</button>
</body></html>`;

describe('toolbar layout and profiler favicon in headless Chromium', { timeout: 90_000 }, () => {
  let session: BrowserSession | undefined;
  let browser: Browser;
  let origin: string;

  before(async () => {
    const app = profiledApp({
      routes: [
        { name: 'tall', path: '/tall', controller: () => HttpResponse.html(TALL) },
        // Names its own icon: the only /favicon.ico request left would come from a profiler page.
        { name: 'iconed', path: '/iconed', controller: () => HttpResponse.html('<!DOCTYPE html><html><head><title>Iconed</title><link rel="icon" href="data:," /></head><body><h1>iconed</h1></body></html>') },
        {
          name: 'elem_csp',
          path: '/elem-csp',
          controller: () =>
            HttpResponse.html('<!DOCTYPE html><html><head><title>Elem</title></head><body><h1>elem CSP</h1></body></html>', 200, {
              'content-security-policy': "default-src 'self'; script-src-elem 'self'; style-src-elem 'self'",
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

  test('regression: the page scrolls past the fixed toolbar (clearer), and the clearer collapses when the toolbar is hidden', async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 600 } });
    const problems = watchPage(page, origin);
    await page.goto(`${origin}/tall`);
    await page.locator('[data-irms-wdt-loaded="1"] .irms-wdt-bar').waitFor({ state: 'visible', timeout: 10_000 });
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const hit = await page.evaluate(() => {
      const b = document.getElementById('last')!.getBoundingClientRect();
      const at = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
      const bar = document.querySelector('.irms-wdt-bar')!.getBoundingClientRect();
      return { hitsButton: at?.id === 'last', buttonBottom: b.bottom, barTop: bar.top };
    });
    assert.ok(hit.hitsButton, `the last button is reachable: ${JSON.stringify(hit)}`);
    assert.ok(hit.buttonBottom <= hit.barTop, `the button ends above the bar: ${JSON.stringify(hit)}`);
    await page.screenshot({ path: `${SHOTS}toolbar-clearer-bottom.png` });

    await page.locator('.irms-wdt-bar [data-irms-wdt-toggle]').click();
    await page.locator('.irms-wdt-mini button').waitFor({ state: 'visible' });
    assert.equal(await page.evaluate(() => document.querySelector('.irms-wdt-clearer')!.getBoundingClientRect().height), 0, 'hidden toolbar: clearer collapsed');
    await page.locator('.irms-wdt-mini button').click();
    await page.locator('.irms-wdt-bar').waitFor({ state: 'visible' });
    assert.equal(await page.evaluate(() => document.querySelector('.irms-wdt-clearer')!.getBoundingClientRect().height), await page.evaluate(() => document.querySelector('.irms-wdt-bar')!.getBoundingClientRect().height));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('regression: a page whose CSP has script-src-elem / style-src-elem still runs and styles the toolbar', async () => {
    const page = await browser.newPage();
    const problems = watchPage(page, origin);
    await page.goto(`${origin}/elem-csp`);
    await page.locator('[data-irms-wdt-loaded="1"] .irms-wdt-bar').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.irms-wdt')!).position), 'fixed', 'toolbar stylesheet applied');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('regression: opening the profiler makes the browser ask for no /favicon.ico, so "Latest" stays the last real request', async () => {
    // A browser of its own: Chromium did not ask again in a browser whose earlier pages (the other
    // tests', which name no icon) had asked this origin for /favicon.ico already.
    const own = await launchChromium();
    try {
      const page = await own.newPage();
      const problems = watchPage(page, origin);
      const visit = await page.goto(`${origin}/iconed`);
      const token = visit!.headers()['x-debug-token'];
      await page.locator('[data-irms-wdt-loaded="1"]').waitFor({ timeout: 10_000 });
      await page.goto(`${origin}/_profiler/empty/search/results?limit=10`);
      await page.goto(`${origin}/_profiler/${token}`);
      await page.waitForLoadState('load');
      // The browser asks for the icon on its own (no page request event shows it); its 404 would be
      // profiled on a later tick. Give it the time, then read what the profiler stored.
      await page.waitForTimeout(1000);
      const found = await (await fetch(`${origin}/_profiler/empty/search/results?limit=50`, { headers: { accept: 'application/json' } })).json();
      // Newest first: what was profiled since the visit (the other tests' pages have no icon of their own).
      const results = found.results as { token: string; url: string }[];
      const since = results.slice(0, results.findIndex((r) => r.token === token)).map((r) => new URL(r.url).pathname);
      assert.deepEqual(since, []);
      const latest = await (await fetch(`${origin}/_profiler/latest`, { headers: { accept: 'application/json' } })).json();
      assert.equal(latest.token, token);
      assert.deepEqual(problems, []);
    } finally {
      await own.close();
    }
  });
});
