/**
 * The example guestbook (examples/guestbook) in headless Chromium (Debian's `chromium`), debug mode:
 * a visitor signs it (a failed validation, then an entry with a picture), pages through it, switches
 * language, hits the upload limit, logs in, edits, deletes and logs out. Every page must show the debug
 * toolbar without a console error or CSP violation; the profiles of the upload and of the failed
 * validation are opened panel by panel, and none may show a password, CSRF token or session id; the
 * exception page of a thrown error works with JavaScript on and off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { openBrowserSession, SHOTS, watchPage, type BrowserSession } from '../support/browser.ts';
import { PANELS } from '../../src/debug/profiler/views/layout.ts';
import { listener } from '../../src/index.ts';
import { BODY_LIMIT, createGuestbookApp } from '../../examples/guestbook/app.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d4944415478da63f8cfc0f01f0005000201a2f7d6a40000000049454e44ae426082', 'hex');

describe('guestbook in headless Chromium', { timeout: 60_000 }, () => {
  let session: BrowserSession | undefined;
  let browser: Browser;
  let origin: string;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  /** What must never appear on a profiler page: filled in as the visitor meets them. */
  const secrets = new Set<string>(['admin-pass', 'wrong-pass-42']);
  const tokens: { invalid?: string; upload?: string; login?: string } = {};

  before(async () => {
    const app = createGuestbookApp({
      debug: true,
      logLevel: 'emergency',
      logSink: () => {},
      listeners: [
        {
          hook: 'kernel.request',
          listener: listener<'kernel.request'>('App\\EventListener\\OutageListener::onKernelRequest', 'a storage outage, on demand', (event) => {
            if (event.request.query.has('outage')) throw new Error('Guestbook storage is unavailable');
          }),
        },
      ],
    });
    session = await openBrowserSession(app);
    ({ origin, browser } = session);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    page = await context.newPage();
    // Deliberate 4xx answers (the 422 form, the 413 upload, 404s) are logged by Chromium as failed loads.
    const seen = watchPage(page, origin);
    problems = new Proxy(seen, {
      get: (target, key) => (key === 'filtered' ? target.filter((p) => !/Failed to load resource: the server responded with a status of (413|422)/.test(p)) : Reflect.get(target, key)),
    });
  });

  after(async () => {
    await session?.close();
  });

  const reported = () => (problems as unknown as { filtered: string[] }).filtered;

  /** The toolbar of the page on screen: loaded, showing this status, its token link pointing at its profile. */
  async function toolbar(status: number): Promise<string> {
    const bar = page.locator('[data-irms-wdt-loaded="1"] .irms-wdt-bar');
    await bar.waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal((await page.locator('[data-irms-wdt="status"] .irms-wdt-value').textContent())?.trim(), String(status), `status on ${page.url()}`);
    const token = (await page.locator('[data-irms-wdt="token"] .irms-wdt-value').textContent())?.trim() ?? '';
    assert.match(token, /^[0-9a-f]{6}$/);
    assert.equal(await page.locator('[data-irms-wdt="token"]').evaluate((a) => (a as HTMLAnchorElement).href), `${origin}/_profiler/${token}`);
    for (const href of await page.locator('.irms-wdt-bar a').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href))) {
      assert.ok(href.startsWith(`${origin}/_profiler/`), href);
      assert.equal((await page.request.get(href)).status(), 200, href);
    }
    return token;
  }

  /** Clicks a submit button and answers the POST it sends. */
  async function submit(button: string): Promise<Response> {
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.locator(button).click()]);
    await page.waitForLoadState('load');
    return response;
  }

  async function rememberFormSecrets(): Promise<void> {
    for (const value of await page.locator('input[type=hidden]').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))) secrets.add(value);
    for (const cookie of await context.cookies()) secrets.add(cookie.value);
  }

  test('a visitor signs the guestbook, pages through it and switches language; every page has its toolbar', async () => {
    await page.goto(`${origin}/`);
    assert.equal(page.url(), `${origin}/en/`);
    await toolbar(200);
    await page.locator('text=No entries yet.').waitFor();

    await Promise.all([page.waitForURL(`${origin}/fr/`), page.locator('a[hreflang="fr"]').click()]);
    await toolbar(200);
    await Promise.all([page.waitForURL(`${origin}/fr/entries/new`), page.locator("text=Signer le livre d'or").last().click()]);
    await toolbar(200);
    await rememberFormSecrets();

    // A failed validation: 422, the error beside its field, what was typed kept.
    await page.locator('input[name="entry[author]"]').fill('Ann <b>');
    const invalid = await submit('form button');
    assert.equal(invalid.status(), 422);
    tokens.invalid = invalid.headers()['x-debug-token'];
    assert.equal(await toolbar(422), tokens.invalid);
    assert.equal(await page.locator('[data-field="message"]').textContent(), 'Cette valeur ne doit pas être vide.');
    assert.equal(await page.locator('input[name="entry[author]"]').inputValue(), 'Ann <b>');
    await rememberFormSecrets();

    // Then a valid one with a picture: redirect-after-post, the flash, the picture under the page's CSP.
    await page.locator('textarea[name="entry[message]"]').fill('Très joli !');
    await page.locator('input[type=file]').setInputFiles({ name: 'ann.png', mimeType: 'image/png', buffer: PNG });
    const upload = await submit('form button');
    assert.equal(upload.status(), 303);
    tokens.upload = upload.headers()['x-debug-token'];
    assert.equal(page.url(), `${origin}/fr/`);
    await toolbar(200);
    assert.equal(await page.locator('.flash-success').textContent(), 'Merci pour votre message !');
    assert.equal(await page.locator('#entry-1 strong').textContent(), 'Ann <b>');
    assert.ok(await page.locator('#entry-1 img').evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 1), 'the picture is shown');

    // Five more, for a second page.
    for (let i = 2; i <= 6; i++) {
      await page.goto(`${origin}/en/entries/new`);
      await page.locator('input[name="entry[author]"]').fill(`Guest ${i}`);
      await page.locator('textarea[name="entry[message]"]').fill(`Entry ${i}`);
      assert.equal((await submit('form button')).status(), 303);
    }
    await toolbar(200);
    assert.equal(await page.locator('li.entry').count(), 5);
    await Promise.all([page.waitForURL(`${origin}/en/?page=2`), page.locator('a[rel=next]').click()]);
    await toolbar(200);
    assert.equal(await page.locator('li.entry strong').textContent(), 'Ann <b>');
    await Promise.all([page.waitForURL(`${origin}/fr/?page=2`), page.locator('a[hreflang="fr"]').click()]);
    await toolbar(200);
    await Promise.all([page.waitForURL(`${origin}/fr/`), page.locator('a[rel=prev]').click()]);
    await toolbar(200);

    // An upload over the body limit: the 413 page, with its toolbar too.
    await page.goto(`${origin}/en/entries/new`);
    await page.locator('input[name="entry[author]"]').fill('Big');
    await page.locator('textarea[name="entry[message]"]').fill('A large picture');
    await page.locator('input[type=file]').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(BODY_LIMIT) });
    assert.equal((await submit('form button')).status(), 413);
    await toolbar(413);
    assert.match(await page.title(), /\(413 Payload Too Large\)$/);
    await page.screenshot({ path: `${SHOTS}guestbook-413.png` });
    assert.deepEqual(reported(), []);
  });

  test('the admin logs in, edits and deletes an entry, and logs out', async () => {
    await page.goto(`${origin}/en/entries/1/edit`);
    assert.equal(page.url(), `${origin}/en/login`);
    await toolbar(200);
    await page.locator('input[name=_username]').fill('admin');
    await page.locator('input[name=_password]').fill('wrong-pass-42');
    await submit('form button');
    assert.equal(await page.locator('p.error').textContent(), 'Invalid credentials.');
    await toolbar(200);
    await rememberFormSecrets();
    await page.locator('input[name=_password]').fill('admin-pass');
    const login = await submit('form button');
    tokens.login = login.headers()['x-debug-token'];
    assert.equal(page.url(), `${origin}/en/entries/1/edit`, 'back where the login was asked for');
    await toolbar(200);
    assert.equal((await page.locator('[data-irms-wdt="member"] .irms-wdt-value').textContent())?.trim(), 'admin');
    await rememberFormSecrets();

    await page.locator('textarea[name="entry[message]"]').fill('Edited by the admin');
    await submit('form button');
    assert.equal(page.url(), `${origin}/en/`);
    await toolbar(200);
    assert.equal(await page.locator('.flash-success').textContent(), 'Entry updated.');
    await Promise.all([page.waitForURL(`${origin}/en/?page=2`), page.locator('a[rel=next]').click()]);
    assert.equal(await page.locator('#entry-1 q').textContent(), 'Edited by the admin');
    await submit('#entry-1 form.delete button');
    await toolbar(200);
    assert.equal(await page.locator('.flash-success').textContent(), 'Entry deleted.');
    assert.equal(await page.locator('#entry-1').count(), 0);

    await Promise.all([page.waitForURL(`${origin}/en/`), page.locator('text=Log out').click()]);
    await toolbar(200);
    assert.equal(await page.locator('nav a[href="/en/login"]').count(), 1);
    assert.equal(await page.locator('form.delete').count(), 0);
    assert.deepEqual(reported(), []);
  });

  test('the profiles of the upload, the failed validation and the login: every panel opens, nothing secret shows', async () => {
    // The toolbar's token link opens the profile of the page it sits on.
    await page.goto(`${origin}/en/`);
    const listToken = await toolbar(200);
    await Promise.all([page.waitForURL(`${origin}/_profiler/${listToken}`), page.locator('[data-irms-wdt="token"]').click()]);
    assert.ok(secrets.size >= 5, `secrets collected: ${secrets.size}`);

    for (const [label, token] of Object.entries(tokens)) {
      assert.ok(token, label);
      await page.goto(`${origin}/_profiler/${token}`);
      for (const panel of PANELS) {
        await Promise.all([page.waitForLoadState('load'), page.locator(`.pf-menu li[data-panel="${panel}"] a`).click()]);
        await page.locator(`#pf-panel[data-panel="${panel}"]`).waitFor();
        let html = await page.content();
        if (panel === 'exception' && (await page.locator('iframe.pf-iframe').count()) > 0) {
          html += await page.frameLocator('iframe.pf-iframe').locator('html').innerHTML();
        }
        for (const secret of secrets) assert.ok(!html.includes(secret), `${label} profile, ${panel} panel shows a secret (${secret.slice(0, 6)}…)`);
      }
    }
    await page.goto(`${origin}/_profiler/${tokens.upload}?panel=request`);
    const request = (await page.locator('#pf-panel').innerText()).replace(/\s+/g, ' ');
    assert.match(request, /"file": "ann\.png", "size": 70, "type": "image\/png"/);
    assert.match(request, /"message": "Très joli !"/);
    assert.match(request, /"_token": "\*\*\*"/, 'the CSRF field is listed, masked');
    // The session keeps the token itself (the form carries a randomized copy): masked too.
    await page.goto(`${origin}/_profiler/${tokens.upload}?panel=session`);
    assert.match((await page.locator('#pf-panel').innerText()).replace(/\s+/g, ' '), /_csrf\/entry \*\*\*/);
    await page.goto(`${origin}/_profiler/${tokens.invalid}?panel=request`);
    assert.match((await page.locator('#pf-panel').innerText()).replace(/\s+/g, ' '), /"author": "Ann <b>"/);
    assert.deepEqual(reported(), []);
  });

  test('the exception page of a thrown error: tabs switch with JavaScript, and all show without it', async () => {
    const response = await page.goto(`${origin}/en/?outage=1`);
    assert.equal(response?.status(), 500);
    assert.equal(await page.locator('h1.exception-message').textContent(), 'Guestbook storage is unavailable');
    await toolbar(500);
    const html = await page.content();
    for (const secret of secrets) assert.ok(!html.includes(secret), `the exception page shows a secret (${secret.slice(0, 6)}…)`);
    await page.locator('[data-tab="tab-logs"]').click();
    await page.locator('#tab-logs').waitFor({ state: 'visible' });
    assert.ok(!(await page.locator('#tab-exceptions').isVisible()));
    await page.locator('[data-tab="tab-traces"]').click();
    await page.locator('#tab-traces').waitFor({ state: 'visible' });
    await page.locator('[data-tab="tab-exceptions"]').click();
    await page.locator('#tab-exceptions').waitFor({ state: 'visible' });
    assert.deepEqual(reported().filter((p) => !/status of 500/.test(p)), []);

    const noJs = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noJs.newPage();
    assert.equal((await plain.goto(`${origin}/en/?outage=1`))?.status(), 500);
    for (const id of ['#tab-exceptions', '#tab-logs', '#tab-traces']) assert.ok(await plain.locator(id).isVisible(), `${id} visible without JavaScript`);
    await plain.locator('[data-tab="tab-traces"]').click();
    assert.equal(new URL(plain.url()).hash, '#tab-traces');
    await noJs.close();
  });
});
