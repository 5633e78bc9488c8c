/**
 * The debug error page in a real browser: headless Chromium (Debian's `chromium`, installed by
 * `.ci/run`) driven by playwright-core, against the app served by `serve()` on a loopback port.
 * Screenshots of every tab land in test-output/screenshots/ (git-ignored).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { openBrowserSession, SHOTS, watchPage, type BrowserSession } from '../support/browser.ts';
import { createApp, listener } from '../../src/index.ts';


describe('debug error page in headless Chromium', { timeout: 60_000 }, () => {
  let session: BrowserSession | undefined;
  let browser: Browser;
  let origin: string;

  before(async () => {
    const app = createApp({
      env: 'dev',
      environment: {},
      logSink: () => {},
      routes: [
        {
          name: 'checkout',
          path: '/checkout/:id',
          controller: function checkoutController(request) {
            const id = request.attributes.getString('id');
            try {
              JSON.parse(`{"order": ${id}`);
            } catch (cause) {
              throw new TypeError(`Cannot load order "${id}": the cart payload is invalid`, { cause });
            }
            return null;
          },
        },
      ],
      listeners: [
        {
          hook: 'kernel.request',
          placement: { index: 0 },
          listener: listener<'kernel.request'>('VisitLogger::onKernelRequest', 'test visit logging', (event) => {
            event.request.logger.info('app', 'Visitor {ip} asked for {path}', { ip: '127.0.0.1', path: event.request.pathInfo, tags: ['<b>bold</b>', 42] });
            event.request.logger.warning('app', 'Cache {pool} is cold', { pool: 'pages' });
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

  /** Console errors and page errors, except the expected 404/500 of the page itself. */
  function watch(page: Page): string[] {
    return watchPage(page, origin);
  }

  const visible = (page: Page, selector: string) => page.locator(selector).isVisible();

  test('GET /robots.txt: tabs switch, logs are listed, no console errors', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    const page = await context.newPage();
    const problems = watch(page);
    const response = await page.goto(`${origin}/robots.txt`);
    assert.equal(response?.status(), 404);
    const message = `No route found for "GET ${origin}/robots.txt"`;
    assert.equal(await page.title(), `${message} (404 Not Found)`);
    assert.equal((await page.locator('h1.exception-message').textContent())?.trim(), message);
    assert.equal((await page.locator('.exception-http').textContent())?.replace(/\s+/g, ' ').trim(), 'HTTP 404 Not Found');
    assert.equal((await page.locator('.exception-hierarchy').innerText()).replace(/\s+/g, ' ').trim(), 'ResourceNotFoundException › NotFoundHttpException');

    // Exceptions tab: active first, two blocks, application frames with a code excerpt.
    assert.ok(await visible(page, '#tab-exceptions'));
    assert.ok(!(await visible(page, '#tab-logs')));
    assert.equal(await page.locator('#tab-exceptions .trace-box').count(), 2);
    assert.match((await page.locator('[data-tab="tab-exceptions"]').textContent()) ?? '', /Exceptions\s*2/);
    assert.ok(await page.locator('#trace-box-1 .excerpt .line.current').first().isVisible(), 'the first application frame shows its code');
    assert.match((await page.locator('#trace-box-1 .trace-where').textContent()) ?? '', /src\/listeners\/router-listener\.ts:\d+/);
    await page.screenshot({ path: `${SHOTS}robots-exceptions.png`, fullPage: true });

    // Logs tab.
    await page.click('[data-tab="tab-logs"]');
    assert.ok(await visible(page, '#tab-logs'));
    assert.ok(!(await visible(page, '#tab-exceptions')));
    const rows = page.locator('#tab-logs table.logs tbody tr');
    const texts = await rows.allInnerTexts();
    assert.ok(texts.some((t) => t.includes('Visitor 127.0.0.1 asked for /robots.txt')), 'placeholders filled');
    assert.ok(texts.some((t) => t.includes('Cache pages is cold') && t.includes('WARNING')));
    assert.ok(texts.some((t) => t.includes(`Uncaught Exception NotFoundHttpException: "${message}"`) && t.includes('ERROR')));
    assert.ok(texts.some((t) => t.includes('"<b>bold</b>"')), 'context shown as text, not markup');
    assert.equal(await page.locator('#tab-logs b').count(), 0);
    assert.equal((await page.locator('[data-tab="tab-logs"] .badge').textContent())?.trim(), '1');
    await page.screenshot({ path: `${SHOTS}robots-logs.png`, fullPage: true });

    // Level filter: only ERROR and above.
    await page.click('.log-filters [data-min-level="400"]');
    assert.equal(await page.locator('#tab-logs table.logs tbody tr:not(.hidden)').count(), 1);
    await page.click('.log-filters [data-min-level="0"]');

    // Stack Traces tab.
    await page.click('[data-tab="tab-traces"]');
    assert.ok(await visible(page, '#tab-traces'));
    assert.ok(!(await visible(page, '#tab-logs')));
    const heads = await page.locator('#tab-traces .trace-text-head h3').allInnerTexts();
    assert.deepEqual(heads, ['[2/2] NotFoundHttpException', '[1/2] ResourceNotFoundException']);
    assert.match(await page.locator('#trace-text-1').innerText(), /^NotFoundHttpException:\n/);
    await page.screenshot({ path: `${SHOTS}robots-stack-traces.png`, fullPage: true });

    // The hierarchy links open the exception block on the Exceptions tab.
    await page.click('.exception-hierarchy a[href="#trace-box-2"]');
    assert.ok(await visible(page, '#tab-exceptions'));
    assert.equal(await page.locator('#trace-box-2').getAttribute('open'), '');

    // Theme toggle: dark, remembered across reloads.
    await page.click('.theme-toggle');
    assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.notEqual(bg, 'rgb(244, 245, 248)');
    await page.click('[data-tab="tab-exceptions"]');
    await page.screenshot({ path: `${SHOTS}robots-exceptions-dark.png`, fullPage: true });
    await page.reload();
    assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the system dark theme is followed without a stored choice', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto(`${origin}/robots.txt`);
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(17, 19, 25)');
    await context.close();
  });

  test('with JavaScript disabled every panel is visible and readable', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false, colorScheme: 'light' });
    const page = await context.newPage();
    const problems = watch(page);
    await page.goto(`${origin}/robots.txt`);
    assert.equal(await page.locator('html').getAttribute('class'), 'no-js');
    for (const id of ['#tab-exceptions', '#tab-logs', '#tab-traces']) assert.ok(await visible(page, id), `${id} visible without JS`);
    assert.ok(await visible(page, '#tab-logs table.logs'));
    assert.ok(await page.locator('#tab-logs tbody tr').first().isVisible());
    assert.ok(await visible(page, '#trace-text-1'));
    assert.ok(await page.locator('#tab-exceptions .panel-title').isVisible(), 'panel titles label the sections');
    // The tab bar still works as in-page links.
    await page.click('[data-tab="tab-traces"]');
    assert.equal(new URL(page.url()).hash, '#tab-traces');
    await page.screenshot({ path: `${SHOTS}robots-no-js.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a 500 from a throwing controller renders the same page, payloads escaped', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    const page = await context.newPage();
    const problems = watch(page);
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    const response = await page.goto(`${origin}/checkout/%3Cimg%20src=x%20onerror=alert(1)%3E`);
    assert.equal(response?.status(), 500);
    assert.equal((await page.locator('.exception-http').textContent())?.replace(/\s+/g, ' ').trim(), 'HTTP 500 Internal Server Error');
    assert.equal((await page.locator('.exception-hierarchy').innerText()).replace(/\s+/g, ' ').trim(), 'SyntaxError › TypeError');
    assert.equal(await page.locator('img').count(), 0, 'the payload stays text');
    assert.match((await page.locator('h1.exception-message').textContent()) ?? '', /<img src=x onerror=alert\(1\)>/);
    assert.match((await page.locator('.request-line').innerText()).replace(/\s+/g, ' '), /Route checkout/);
    assert.match((await page.locator('#trace-box-1 .trace-where').textContent()) ?? '', /test\/browser\/error-page\.test\.ts:\d+/);
    await page.screenshot({ path: `${SHOTS}controller-500.png`, fullPage: true });
    assert.equal(dialogs, 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the welcome page for / links the profiler and the routes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    const page = await context.newPage();
    const problems = watch(page);
    const response = await page.goto(`${origin}/`);
    assert.equal(response?.status(), 404);
    assert.equal(await page.title(), 'Welcome to irms-web!');
    assert.deepEqual(await page.locator('main li a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))), ['/_profiler/', '/_profiler/latest?panel=routing']);
    await page.screenshot({ path: `${SHOTS}welcome.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });
});
