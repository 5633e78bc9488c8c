/**
 * What the log stream and the debug page show of log records: one record per line, and no secret an
 * application or the framework put in a record's message or context (the brief: secrets are masked
 * before they are logged).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type KernelRequest } from '../../src/index.ts';
import { records, send, testApp } from '../pipeline/harness.ts';

const CANARY = 'CANARY7f3';

test('regression: CR/LF in a logged message forged extra log lines (line format)', async () => {
  const forged = '\n[2026-01-01T00:00:00.000000+00:00] security.CRITICAL: FORGED [] []';
  const { app, lines } = testApp({ env: 'prod', debug: false, logFormat: 'line' });
  const r = await send(app, `/?_method=${encodeURIComponent(`x${forged}`)}`, { method: 'POST' });
  assert.equal(r.status, 400);
  const logged = lines.join('');
  assert.match(logged, /Invalid method override/);
  for (const line of lines) assert.doesNotMatch(line, /[\r\n]/, 'one record per line');
  assert.ok(!lines.some((line) => line.startsWith('[2026-01-01')), 'no line starts where the client chose');

  const { app: app2, lines: lines2 } = testApp({
    env: 'prod',
    debug: false,
    logFormat: 'line',
    routes: [{ name: 'note', path: '/note', controller: (r: KernelRequest) => { r.logger.warning('app', `note ${r.query.getString('q')}`); return HttpResponse.text('ok'); } }],
  });
  await send(app2, `/note?q=${encodeURIComponent('a\r\nb\rc')}`);
  assert.deepEqual(lines2.filter((l) => l.includes('note ')).map((l) => /app\.WARNING: (note [^[]*)/.exec(l)?.[1]), ['note a b c ']);
});

const leaky = (r: KernelRequest) => {
  r.logger.warning('app', 'Signing in with {password} for {user}', {
    user: 'ada',
    password: CANARY,
    api_key: CANARY,
    nested: { client_secret: CANARY, list: [{ token: CANARY }] },
    url: `https://ada:${CANARY}@api.test/cb?token=${CANARY}&page=2`,
    header: `Bearer ${CANARY}xyz`,
  });
};

test('regression: secrets in an application\'s log context reached the log stream unmasked', async () => {
  for (const logFormat of ['line', 'json'] as const) {
    const { app, lines } = testApp({ env: 'prod', debug: false, logFormat, routes: [{ name: 'l', path: '/l', controller: (r: KernelRequest) => { leaky(r); return HttpResponse.text('ok'); } }] });
    await send(app, '/l');
    const line = lines.find((l) => l.includes('Signing in'));
    assert.ok(line, logFormat);
    assert.ok(!line.includes(CANARY), `${logFormat}: ${line}`);
    assert.match(line, /for ada/, 'other placeholders still filled');
    assert.match(line, /page=2/, 'the rest of a URL is kept');
  }
});

// The path itself stays in the record's URL, as in any access log: a secret belongs in a body or a
// header, not in a path. The parameters the router lists are masked by name.
test('regression: a route parameter named token was logged in clear in "Matched route"', async () => {
  const { app, lines } = testApp({ logFormat: 'json', logLevel: 'debug', routes: [{ name: 'reset', path: '/reset/:token', controller: () => HttpResponse.text('ok') }] });
  assert.equal((await send(app, `/reset/${CANARY}`)).status, 200);
  const matched = records(lines).find((r) => r.message === 'Matched route "reset".');
  assert.ok(matched);
  assert.equal((matched.context.route_parameters as Record<string, unknown>).token, '***');
});

test('regression: the debug page showed log contexts and error properties unmasked', async () => {
  const { app } = testApp({
    routes: [
      {
        name: 'boom',
        path: '/boom',
        controller: (r: KernelRequest) => {
          leaky(r);
          throw Object.assign(new Error('upstream failed'), { config: { headers: { Authorization: `Bearer ${CANARY}`, accept: 'json' } }, attempt: 2 });
        },
      },
    ],
  });
  const r = await send(app, '/boom');
  assert.equal(r.status, 500);
  const page = await r.text();
  assert.match(page, /upstream failed/);
  assert.match(page, /Signing in with \*\*\* for ada/);
  assert.ok(!page.includes(CANARY));
});

test('the member log keeps the token as maskToken cut it (CONTRACT §8.5), not the full mask', async () => {
  const { app, lines } = testApp({ logFormat: 'line', routes: [{ name: 'me', path: '/me', controller: (r: KernelRequest) => { r.logger.info('app', 'irms_token "{irms_token}"', { irms_token: 'tok-…' }); return HttpResponse.text('ok'); } }] });
  await send(app, '/me');
  assert.ok(lines.some((l) => l.includes('irms_token "tok-…" {"irms_token":"tok-…"}')), lines.join('\n'));
});
