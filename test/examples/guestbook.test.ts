import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGuestbookApp, BODY_LIMIT } from '../../examples/guestbook/app.ts';

/**
 * The example guestbook (examples/guestbook), driven as a browser drives it: forms, cookies, redirects.
 * Each test builds its own app, so entries never leak from one test into another.
 */
type App = ReturnType<typeof createGuestbookApp>;
const prod = () => createGuestbookApp({ debug: false, logSink: () => {} });

/** A browser: keeps its cookies, never follows redirects. */
function browser(app: App) {
  const jar = new Map<string, string>();
  const visit = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await app.fetch(new Request(`http://guestbook.test${path}`, { ...init, headers, redirect: 'manual' }));
    for (const line of response.headers.getSetCookie()) {
      const [, name, value] = /^([^=]+)=([^;]*)/.exec(line)!;
      if (/max-age=0/i.test(line)) jar.delete(name!);
      else jar.set(name!, value!);
    }
    return response;
  };
  return Object.assign(visit, { jar });
}

const field = (html: string, name: string) => new RegExp(`name="${name.replace(/[[\]]/g, '\\$&')}" value="([^"]*)"`).exec(html)?.[1];

/** Fills the "sign" form as a browser does: the page first, for its CSRF token; an empty file input unless a file is given. */
async function sign(visit: ReturnType<typeof browser>, fields: { author: string; message: string; image?: File }, locale = 'en') {
  const page = await (await visit(`/${locale}/entries/new`)).text();
  const body = new FormData();
  body.set('entry[_token]', field(page, 'entry[_token]')!);
  body.set('entry[author]', fields.author);
  body.set('entry[message]', fields.message);
  body.set('entry[image]', fields.image ?? new File([], ''));
  return visit(`/${locale}/entries/new`, { method: 'POST', body });
}

async function logInAsAdmin(visit: ReturnType<typeof browser>, password = 'admin-pass', locale = 'en') {
  const page = await (await visit(`/${locale}/login`)).text();
  return visit(`/${locale}/login`, { method: 'POST', body: new URLSearchParams({ _csrf_token: field(page, '_csrf_token')!, _username: 'admin', _password: password }) });
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

test('/ sends the visitor to their language; an empty guestbook says so in French', async () => {
  const visit = browser(prod());
  const home = await visit('/', { headers: { 'accept-language': 'fr-CH, en;q=0.5' } });
  assert.equal(home.status, 302);
  assert.equal(home.headers.get('location'), '/fr/');
  const list = await visit('/fr/');
  assert.equal(list.status, 200);
  const html = await list.text();
  assert.match(html, /<html lang="fr">/);
  assert.match(html, /<p>Aucun message\.<\/p>/);
  assert.match(html, /<a href="\/en\/" hreflang="en">EN<\/a>/);
  assert.equal(list.headers.get('set-cookie'), null, 'an anonymous visit to the list starts no session');
  assert.equal((await visit('/de/')).status, 404);
});

test('an invalid entry is shown again with what was typed, escaped, its errors, and a 422', async () => {
  const visit = browser(prod());
  const response = await sign(visit, { author: '<script>alert(1)</script>', message: '   ' });
  assert.equal(response.status, 422);
  const html = await response.text();
  assert.match(html, /name="entry\[author\]" value="&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
  assert.match(html, /<p class="error" data-field="message">This value should not be blank\.<\/p>/);
  assert.doesNotMatch(html, /data-field="author"/);
  assert.doesNotMatch(html, /<script>alert/);
  assert.ok(field(html, 'entry[_token]'), 'the form is there to be submitted again, with a token');
});

test('a form without the session its token came from is refused as CSRF, not saved', async () => {
  const app = prod();
  const visit = browser(app);
  const page = await (await visit('/en/entries/new')).text();
  const body = new FormData();
  body.set('entry[_token]', field(page, 'entry[_token]')!);
  body.set('entry[author]', 'Mallory');
  body.set('entry[message]', 'forged');
  const forged = await browser(app)('/en/entries/new', { method: 'POST', body });
  assert.equal(forged.status, 422);
  assert.match(await forged.text(), /The CSRF token is invalid\. Please try to resubmit the form\./);
  assert.doesNotMatch(await (await visit('/en/')).text(), /Mallory/);
});

test('a valid entry redirects (303) to the list, which shows the flash once; its picture is served', async () => {
  const visit = browser(prod());
  const saved = await sign(visit, { author: 'Ann', message: 'Lovely place', image: new File([PNG], 'me.png', { type: 'image/png' }) }, 'fr');
  assert.equal(saved.status, 303);
  assert.equal(saved.headers.get('location'), '/fr/');
  const list = await (await visit('/fr/')).text();
  assert.match(list, /<p class="flash flash-success" role="status">Merci pour votre message !<\/p>/);
  assert.match(list, /<strong>Ann<\/strong> <q>Lovely place<\/q> <img src="\/entries\/1\/image"/);
  assert.doesNotMatch(await (await visit('/fr/')).text(), /flash-success/, 'a flash is shown once');
  const image = await visit('/entries/1/image');
  assert.equal(image.headers.get('content-type'), 'image/png');
  assert.deepEqual(new Uint8Array(await image.arrayBuffer()), PNG);
});

test('an entry posted without a picture (an empty file input) has none; a text file is refused', async () => {
  const visit = browser(prod());
  assert.equal((await sign(visit, { author: 'Bob', message: 'No photo' })).status, 303);
  assert.doesNotMatch(await (await visit('/en/')).text(), /<img/);
  assert.equal((await visit('/entries/1/image')).status, 404);
  const refused = await sign(visit, { author: 'Eve', message: 'x', image: new File(['hello'], 'a.txt', { type: 'text/plain' }) });
  assert.equal(refused.status, 422);
  assert.match(await refused.text(), /data-field="image">Please upload a PNG, JPEG or GIF image\./);
});

test('an upload over the body limit is the 413 page, and nothing is saved', async () => {
  const visit = browser(prod());
  const response = await sign(visit, { author: 'Big', message: 'too big', image: new File([new Uint8Array(BODY_LIMIT)], 'big.png', { type: 'image/png' }) });
  assert.equal(response.status, 413);
  assert.match(await response.text(), /<title>An Error Occurred: Payload Too Large<\/title>/);
  assert.match(await (await visit('/en/')).text(), /No entries yet\./);
});

test('the list shows five entries a page, newest first, with links to the pages around it', async () => {
  const visit = browser(prod());
  for (let i = 1; i <= 6; i++) assert.equal((await sign(visit, { author: `Guest ${i}`, message: `Entry ${i}` })).status, 303);
  const first = await (await visit('/en/')).text();
  assert.equal(first.match(/class="entry"/g)?.length, 5);
  assert.match(first, /<strong>Guest 6<\/strong>/);
  assert.match(first, /<a rel="next" href="\/en\/\?page=2">Next<\/a>/);
  const second = await (await visit('/en/?page=2')).text();
  assert.match(second, /<strong>Guest 1<\/strong>/);
  assert.match(second, /<a rel="prev" href="\/en\/">Previous<\/a> <span>2 \/ 2<\/span>/);
  assert.match(second, /<a href="\/fr\/\?page=2" hreflang="fr">FR<\/a>/, 'the language switch keeps the page');
  assert.equal((await visit('/en/?page=3')).status, 404);
  assert.equal((await visit('/en/?page=abc')).status, 404);
});

test('edit needs a login: the visitor is sent to the login page of their language, then back to the form', async () => {
  const visit = browser(prod());
  await sign(visit, { author: 'Ann', message: 'Hi' });
  const denied = await visit('/fr/entries/1/edit');
  assert.equal(denied.status, 302);
  assert.equal(denied.headers.get('location'), 'http://guestbook.test/fr/login');
  const wrong = await logInAsAdmin(visit, 'nope', 'fr');
  assert.equal(wrong.status, 200);
  assert.match(await wrong.text(), /<p class="error">Identifiants invalides\.<\/p>/);
  const loggedIn = await logInAsAdmin(visit, 'admin-pass', 'fr');
  assert.equal(loggedIn.status, 302);
  assert.equal(loggedIn.headers.get('location'), 'http://guestbook.test/fr/entries/1/edit');
  const form = await (await visit('/fr/entries/1/edit')).text();
  assert.match(form, /name="entry\[message\]">Hi<\/textarea>/);
  const body = new URLSearchParams({ 'entry[_token]': field(form, 'entry[_token]')!, 'entry[author]': 'Ann', 'entry[message]': 'Edited' });
  assert.equal((await visit('/fr/entries/1/edit', { method: 'POST', body })).status, 303);
  const list = await (await visit('/fr/')).text();
  assert.match(list, /Message modifié\./);
  assert.match(list, /<q>Edited<\/q>/);
  assert.match(list, /<span class="member">admin<\/span> <a href="\/logout">Déconnexion<\/a>/);
});

test('delete asks for its own CSRF token; logging out ends the session and closes the edit page again', async () => {
  const visit = browser(prod());
  await sign(visit, { author: 'Ann', message: 'Hi' });
  await logInAsAdmin(visit);
  const list = await (await visit('/en/')).text();
  const token = field(list, '_token')!;
  assert.equal((await visit('/en/entries/1/delete', { method: 'POST', body: new URLSearchParams({ _token: 'wrong' }) })).status, 303);
  assert.match(await (await visit('/en/')).text(), /<q>Hi<\/q>/, 'a wrong token deletes nothing');
  assert.equal((await visit('/en/entries/1/delete', { method: 'POST', body: new URLSearchParams({ _token: token }) })).status, 303);
  const after = await (await visit('/en/')).text();
  assert.match(after, /Entry deleted\./);
  assert.match(after, /No entries yet\./);
  const out = await visit('/logout');
  assert.equal(out.status, 302);
  assert.equal(out.headers.get('location'), 'http://guestbook.test/');
  assert.equal(visit.jar.size, 0, 'the session cookie is cleared');
  assert.equal((await visit('/en/entries/1/edit')).status, 302);
});

test('debug mode: the profile of an upload keeps the fields, describes the file, and masks the CSRF token and session id', async () => {
  const app = createGuestbookApp({ debug: true, logLevel: 'emergency', logSink: () => {} });
  const visit = browser(app);
  const response = await sign(visit, { author: 'Ann', message: 'With a picture', image: new File([PNG], 'me.png', { type: 'image/png' }) });
  assert.equal(response.status, 303);
  const profile = await (await app.fetch(new Request(response.headers.get('x-debug-token-link')!, { headers: { accept: 'application/json' } }))).json();
  const json = JSON.stringify(profile);
  const sessionId = visit.jar.get('IRMSSESSID')!;
  assert.ok(sessionId);
  assert.ok(!json.includes(sessionId), 'no session id in the profile');
  assert.match(json, /"_token":"\*\*\*"/);
  assert.match(json, /"author":"Ann"/);
  assert.match(json, /"file":"me.png","size":11,"type":"image\/png"/);
});
