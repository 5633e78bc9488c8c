/**
 * The debug toolbar and the error page's script on pages that are not the plain HTML page they were
 * first written for, in headless Chromium: an XHTML page (parsed as XML), a page that requires Trusted
 * Types, a page whose stylesheet makes every div a column flex box; and the error page's Copy button
 * and fragment navigation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, openBrowserSession, watchPage, type BrowserSession } from '../support/browser.ts';
import { HttpResponse } from '../../src/index.ts';
import { profiledApp } from '../profiler/support.ts';

const XHTML = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>XHTML</title><link rel="icon" href="data:," /></head><body><h1 id="own">xhtml page</h1></body></html>`;

const PLAIN = (title: string, head = '') => `<!DOCTYPE html><html><head><title>${title}</title><link rel="icon" href="data:," />${head}</head><body><h1>${title}</h1></body></html>`;

/** A page answered with its own Content-Security-Policy. */
const withCsp = (csp: string) => () => HttpResponse.html(PLAIN('CSP'), 200, { 'content-security-policy': csp });

describe('toolbar and error page on unusual pages in headless Chromium', { timeout: 90_000 }, () => {
  let session: BrowserSession | undefined;
  let browser: Browser;
  let origin: string;

  before(async () => {
    const app = profiledApp({
      routes: [
        { name: 'xhtml', path: '/xhtml', controller: () => new HttpResponse(XHTML, 200, { 'content-type': 'application/xhtml+xml; charset=UTF-8' }) },
        { name: 'tt_any', path: '/tt-any', controller: withCsp("script-src 'nonce-site'; require-trusted-types-for 'script'") },
        { name: 'tt_named', path: '/tt-named', controller: withCsp("script-src 'nonce-site'; require-trusted-types-for 'script'; trusted-types app-policy") },
        { name: 'tt_none', path: '/tt-none', controller: withCsp("script-src 'nonce-site'; require-trusted-types-for 'script'; trusted-types 'none'") },
        {
          name: 'emoji_member',
          path: '/emoji-member',
          controller: (request) => {
            // 39 letters, then an emoji: the toolbar's 40-unit cut falls inside it.
            request.attributes.set('member_id', `${'m'.repeat(39)}\u{1F600}tail`);
            return HttpResponse.html(PLAIN('Emoji member'));
          },
        },
        { name: 'column_divs', path: '/column-divs', controller: () => HttpResponse.html(PLAIN('Columns', '<style>div{display:flex;flex-direction:column}</style>')) },
        {
          name: 'boom',
          path: '/boom',
          controller: (request) => {
            request.logger.error('app', 'Payment failed');
            throw new Error('Boom', { cause: new TypeError('inner cause') });
          },
        },
      ],
    });
    session = await openBrowserSession(app);
    ({ origin, browser } = session);
  });

  after(async () => {
    await session?.close();
  });

  const loadedBar = (page: Page) => page.locator('[data-irms-wdt-loaded="1"] .irms-wdt-bar').waitFor({ state: 'visible', timeout: 10_000 });

  test('regression: an XHTML page with the toolbar became an XML parse error and the toolbar never loaded', async () => {
    const page = await browser.newPage();
    const problems = watchPage(page, origin);
    await page.goto(`${origin}/xhtml`);
    assert.equal(await page.locator('parsererror').count(), 0, 'the page still parses as XML');
    assert.equal(await page.locator('#own').textContent(), 'xhtml page');
    await loadedBar(page);
    // The toggle works in the XML document too (its attribute has a value).
    await page.locator('.irms-wdt-bar [data-irms-wdt-toggle]').click();
    await page.locator('.irms-wdt-mini button').waitFor({ state: 'visible' });
    await page.locator('.irms-wdt-mini button').click();
    await page.locator('.irms-wdt-bar').waitFor({ state: 'visible' });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('regression: on a page that requires Trusted Types the toolbar threw and stayed "Loading" for ever', async () => {
    for (const path of ['/tt-any', '/tt-named']) {
      const page = await browser.newPage();
      const problems = watchPage(page, origin);
      await page.goto(origin + path);
      await loadedBar(page);
      assert.deepEqual(problems, [], path);
      await page.close();
    }
    // A page that allows no policy at all: a clear message and the profile link, no uncaught error.
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/tt-none`);
    await page.locator('.irms-wdt-loading', { hasText: 'An error occurred while loading the debug toolbar' }).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('.irms-wdt-loading a').getAttribute('href'), `/_profiler/${await page.locator('.irms-wdt').getAttribute('data-token')}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('regression: a site stylesheet making every div a column flex box stacked the toolbar blocks vertically', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 600 } });
    const problems = watchPage(page, origin);
    await page.goto(`${origin}/column-divs`);
    await loadedBar(page);
    const shape = await page.evaluate(() => {
      const bar = document.querySelector('.irms-wdt-bar')!.getBoundingClientRect();
      const blocks = [...document.querySelectorAll('.irms-wdt-bar > .irms-wdt-block')].map((b) => b.getBoundingClientRect().top);
      return { width: bar.width, height: bar.height, tops: [...new Set(blocks.map(Math.round))] };
    });
    assert.equal(shape.width, 1200, `full width: ${JSON.stringify(shape)}`);
    assert.equal(shape.height, 38, `one row: ${JSON.stringify(shape)}`);
    assert.equal(shape.tops.length, 1, `blocks side by side: ${JSON.stringify(shape)}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('regression: the error page Copy button stayed "Copied" for good after two quick clicks', async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    const problems = watchPage(page, origin);
    await page.goto(`${origin}/boom#tab-traces`);
    const copy = page.locator('#tab-traces .copy').first();
    await copy.click();
    await copy.click();
    assert.equal(await copy.textContent(), 'Copied');
    assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^Error:\nBoom\n/);
    // Back to its label once the feedback is over (1.2 s after the last click).
    await page.waitForFunction(() => document.querySelector('#tab-traces .copy')!.textContent === 'Copy', undefined, { timeout: 3000 });
    await page.waitForTimeout(1500);
    assert.equal(await copy.textContent(), 'Copy');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('regression: the error page ignored fragment navigation (Back, a changed #hash) and kept showing another tab', async () => {
    const page = await browser.newPage();
    const problems = watchPage(page, origin);
    const active = () => page.evaluate(() => document.querySelector('.tab-panel.active')?.id);
    await page.goto(`${origin}/boom`);
    assert.equal(await active(), 'tab-exceptions');
    await page.evaluate(() => (location.hash = '#tab-logs'));
    await page.waitForFunction(() => document.querySelector('.tab-panel.active')?.id === 'tab-logs', undefined, { timeout: 2000 });
    assert.equal(await page.locator('[data-tab="tab-logs"]').getAttribute('aria-selected'), 'true');
    await page.evaluate(() => (location.hash = '#tab-traces'));
    await page.waitForFunction(() => document.querySelector('.tab-panel.active')?.id === 'tab-traces', undefined, { timeout: 2000 });
    await page.goBack();
    assert.ok(page.url().endsWith('#tab-logs'));
    await page.waitForFunction(() => document.querySelector('.tab-panel.active')?.id === 'tab-logs', undefined, { timeout: 2000 });
    // A trace box named by the fragment opens on the Exceptions tab.
    await page.evaluate(() => (location.hash = '#trace-box-2'));
    await page.waitForFunction(() => document.querySelector('.tab-panel.active')?.id === 'tab-exceptions', undefined, { timeout: 2000 });
    assert.equal(await page.evaluate(() => (document.getElementById('trace-box-2') as HTMLDetailsElement).open), true);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('regression: the error page Copy button copied nothing on a page that is no secure context (plain HTTP from another host)', async () => {
    // A host name of its own for the test server: http://devbox.test is no secure context, so the
    // page has no navigator.clipboard (as over a LAN address or a container's host name).
    const port = new URL(origin).port;
    const own = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--host-resolver-rules=MAP devbox.test 127.0.0.1'] });
    try {
      const context = await own.newContext();
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      const page = await context.newPage();
      await page.goto(`http://devbox.test:${port}/boom#tab-traces`);
      assert.deepEqual(await page.evaluate(() => [isSecureContext, 'clipboard' in navigator]), [false, false]);
      const copy = page.locator('#tab-traces .copy').first();
      await copy.click();
      assert.equal(await copy.textContent(), 'Copied');
      // Read back from a secure page of the same browser.
      const reader = await context.newPage();
      await reader.goto(`${origin}/boom`);
      assert.match(await reader.evaluate(() => navigator.clipboard.readText()), /^Error:\nBoom\n/);
    } finally {
      await own.close();
    }
  });

  test("regression: the Copy button of the error page in the profiler's Exception panel copied nothing (sandboxed frame without clipboard-write)", async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    const visit = await page.goto(`${origin}/boom`);
    await page.evaluate(() => navigator.clipboard.writeText('before'));
    const problems = watchPage(page, origin);
    await page.goto(`${origin}/_profiler/${visit!.headers()['x-debug-token']}?panel=exception`);
    const frame = page.frameLocator('iframe.pf-iframe');
    await frame.locator('[data-tab="tab-traces"]').click();
    await frame.locator('#tab-traces .copy').first().click();
    assert.equal(await frame.locator('#tab-traces .copy').first().textContent(), 'Copied');
    assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^Error:\nBoom\n/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('regression: a member id cut by the toolbar inside an emoji showed a replacement character', async () => {
    const page = await browser.newPage();
    const problems = watchPage(page, origin);
    await page.goto(`${origin}/emoji-member`);
    await loadedBar(page);
    assert.equal(await page.locator('[data-irms-wdt="member"] .irms-wdt-value').textContent(), 'm'.repeat(39));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
