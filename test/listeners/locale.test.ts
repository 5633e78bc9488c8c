import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type LocaleAware, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

class Translator implements LocaleAware {
  locale = 'unset';
  history: string[] = [];
  setLocale(locale: string): void {
    if (locale === 'xx') throw new Error('unsupported');
    this.locale = locale;
    this.history.push(locale);
  }
}

function setup(extra: Record<string, unknown> = {}) {
  const translator = new Translator();
  const routes: RouteDefinition[] = [
    { name: 'page', path: '/:_locale/page', controller: (r) => HttpResponse.json({ locale: r.locale, default: r.defaultLocale, translator: translator.locale }) },
    { name: 'plain', path: '/plain', controller: (r) => HttpResponse.json({ locale: r.locale, translator: translator.locale }) },
  ];
  const { app } = testApp({ routes, localeAware: [translator], ...extra });
  return { app, translator };
}

test('the default locale comes from the configuration', async () => {
  const { app } = setup({ defaultLocale: 'de' });
  assert.deepEqual(await (await send(app, '/plain')).json(), { locale: 'de', translator: 'de' });
});

test('a _locale route attribute sets the request locale; locale-aware services follow and are restored on finish', async () => {
  const { app, translator } = setup();
  const r = await send(app, '/fr/page');
  assert.deepEqual(await r.json(), { locale: 'fr', default: 'en', translator: 'fr' });
  assert.equal(translator.locale, 'en', 'restored to the default locale once the request finished');
  assert.deepEqual(translator.history, ['fr', 'en']);
});

test('a service rejecting a locale gets the default locale', async () => {
  const { app, translator } = setup();
  const r = await send(app, '/xx/page');
  assert.deepEqual(await r.json(), { locale: 'xx', default: 'en', translator: 'en' });
  assert.equal(translator.locale, 'en');
});

test('with enabled locales: _locale is limited to them; Accept-Language picks among them and the response varies on it', async () => {
  const { app } = setup({ enabledLocales: ['en', 'fr', 'de'] });
  assert.equal((await (await send(app, '/it/page')).json()).locale, 'en');
  const r = await send(app, '/plain', { headers: { 'accept-language': 'it;q=0.9, de-AT;q=0.8, fr;q=0.5' } });
  assert.equal((await r.json()).locale, 'de');
  assert.match(r.headers.get('vary') ?? '', /Accept-Language/);
});

test('regression: with enabled locales, Vary: Accept-Language was sent only when the header matched (a shared cache served the default answer to every language); the fallback is the first enabled locale', async () => {
  const { app } = setup({ enabledLocales: ['fr', 'en'], defaultLocale: 'en' });
  for (const [header, locale] of [[null, 'fr'], ['de', 'fr'], ['en', 'en'], ['fr', 'fr']] as const) {
    const r = await send(app, '/plain', { headers: header === null ? {} : { 'accept-language': header } });
    assert.equal((await r.json()).locale, locale, String(header));
    assert.match(r.headers.get('vary') ?? '', /Accept-Language/, `Vary for ${String(header)}`);
  }
});

test('regression: Accept-Language tags were matched case-sensitively with only the first "-" converted (de-ch and FR-ca fell back to the default)', async () => {
  const { app } = setup({ enabledLocales: ['en', 'fr', 'de_CH'], defaultLocale: 'en' });
  const localeFor = async (header: string) => (await (await send(app, '/plain', { headers: { 'accept-language': header } })).json()).locale;
  assert.equal(await localeFor('de-ch'), 'de_CH');
  assert.equal(await localeFor('FR-ca'), 'fr', 'fr_CA, then its primary language');
  assert.equal(await localeFor('zh-hant-tw;q=0.9, fr;q=0.8'), 'fr');
  assert.equal(await localeFor('i-klingon, fr;q=0.1'), 'fr');
  assert.equal(await localeFor('fr;q=0, de-CH;q=0.5'), 'de_CH', 'q=0 refuses a language');
});

test('regression: a _locale of "0" became the request locale (Symfony tests the attribute for PHP truthiness, so "0" is no locale)', async () => {
  const { app, translator } = setup();
  assert.deepEqual(await (await send(app, '/0/page')).json(), { locale: 'en', default: 'en', translator: 'en' });
  assert.deepEqual(translator.history.filter((l) => l === '0'), []);
  const negotiated = await send(setup({ enabledLocales: ['fr', 'de'] }).app, '/0/page', { headers: { 'accept-language': 'de' } });
  assert.equal((await negotiated.json()).locale, 'de', 'with enabled locales, Accept-Language decides, as with no _locale');
  assert.match(negotiated.headers.get('vary') ?? '', /Accept-Language/);
});
