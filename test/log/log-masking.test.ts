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

/** A header value as a client sends its UTF-8 bytes (what a host hands over as Latin-1 characters). */
const utf8Bytes = (s: string) => String.fromCharCode(...new TextEncoder().encode(s));

test('regression: a terminal escape or a line separator in a client\'s Host or Referer reached the log stream raw', async () => {
  // ESC[2J clears the terminal that tails the log; OSC 0 retitles it; CSI (U+009B) is ESC[ in one
  // character; NEL (U+0085) and U+2028 are line breaks to xterm and to Python's splitlines.
  const sent: Record<string, string>[] = [
    { host: 'a\x1b[2jb' },
    { host: utf8Bytes('a\u2028b\u0085c\u009b31md') },
    { referer: 'http://x.test/\x1b]0;pwned\x07' },
  ];
  for (const logFormat of ['line', 'json'] as const) {
    const { app, lines } = testApp({ env: 'prod', debug: false, logFormat, logExcludedHttpCodes: [] });
    for (const headers of sent) await send(app, headers.host ? '/' : '/nope', { headers });
    assert.equal(lines.length, 3, logFormat);
    for (const line of lines) {
      assert.doesNotMatch(line, /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]/, `${logFormat}: ${JSON.stringify(line)}`);
    }
    const messages = logFormat === 'json' ? records(lines).map((r) => r.message) : lines.map((l) => /request\.ERROR: (.*) \{"exception"/.exec(l)![1]!);
    if (logFormat === 'json') {
      // JSON escapes read back as what the client sent.
      assert.match(messages[0]!, /Invalid Host "a\x1b\[2jb"/);
      assert.match(messages[1]!, /Invalid Host "a\u2028b\u0085c\u009b31md"/);
      assert.match(messages[2]!, /\(from "http:\/\/x\.test\/\x1b\]0;pwned\x07"\)/);
    } else {
      // Line breaks are spaces (Monolog's LineFormatter); other controls are written as the context's JSON writes them.
      assert.match(messages[0]!, /Invalid Host "a\\u001b\[2jb"/);
      assert.match(messages[1]!, /Invalid Host "a b c\\u009b31md"/);
      assert.match(messages[2]!, /\(from "http:\/\/x\.test\/\\u001b\]0;pwned\\u0007"\)/);
    }
  }
  // What a decoded route parameter may hold (`%00`, `%7F`, `%0B`…), as an application logs it: a tab stays.
  const { app, lines } = testApp({
    env: 'prod',
    debug: false,
    logFormat: 'line',
    routes: [{ name: 'echo', path: '/echo/:slug', controller: (r: KernelRequest) => { r.logger.warning('app', `slug {slug} ${r.attributes.get('slug')}`, { slug: r.attributes.get('slug') }); return HttpResponse.text('ok'); } }],
  });
  await send(app, `/echo/${encodeURIComponent('a\0b\x7fc\vd\fe\x1cf\u2029g\th')}`);
  assert.equal(lines.length, 1);
  const message = /app\.WARNING: (.*) \{"slug"/.exec(lines[0]!)![1]!;
  assert.equal(message, 'slug a\\u0000b\\u007fc d e f g\th a\\u0000b\\u007fc d e f g\th');
  assert.match(lines[0]!, /\{"slug":"a\\u0000b\\u007fc\\u000bd\\fe\\u001cf\\u2029g\\th"\}/);
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

/** The debug page's Logs tab (the page's title, h1 and Stack Traces keep the raw message, as Symfony's do). */
function logsTab(page: string): string {
  const start = page.indexOf('<section id="tab-logs"');
  assert.ok(start >= 0, 'the page has a Logs tab');
  return page.slice(start, page.indexOf('</section>', start));
}

test('regression: secrets in a log message\'s own text and in a logged exception\'s message reached the log stream and the debug page\'s Logs tab', async () => {
  // What an HTTP client's error looks like: the URL it called and the credentials it sent, wrapping a cause that quotes them too.
  const upstream = () =>
    new Error(`GET https://api.test/v1/charges?api_key=${CANARY}1 failed: 401 (Authorization: Bearer ${CANARY}2)`, {
      cause: new Error(`connect https://hooks.test/cb?access_token=${CANARY}3`),
    });
  const routes = [
    { name: 'note', path: '/note', controller: (r: KernelRequest) => { r.logger.warning('app', `retrying https://hooks.test/cb?token=${CANARY}4 with Bearer ${CANARY}5`); return HttpResponse.text('ok'); } },
    { name: 'caught', path: '/caught', controller: (r: KernelRequest) => { r.logger.error('app', 'Charge failed', { exception: upstream() }); return HttpResponse.text('ok'); } },
    { name: 'boom', path: '/boom', controller: () => { throw upstream(); } },
  ];
  for (const debug of [false, true]) {
    for (const logFormat of ['line', 'json'] as const) {
      const { app, lines } = testApp({ env: debug ? 'dev' : 'prod', debug, logFormat, routes });
      for (const path of ['/note', '/caught', '/boom']) await (await send(app, path)).text();
      app.log('error', `Unhandled promise rejection: Error: fetch https://x.test/?access_token=${CANARY}6 failed`);
      const where = `debug=${debug} ${logFormat}`;
      const text = lines.join('\n');
      assert.ok(!text.includes(CANARY), `${where}:\n${lines.filter((l) => l.includes(CANARY)).join('\n')}`);
      assert.match(text, /retrying https:\/\/hooks\.test\/cb\?token=\*\*\* with Bearer \*\*\*/, where);
      assert.match(text, /Uncaught Exception Error: \\?"GET https:\/\/api\.test\/v1\/charges\?api_key=\*\*\* failed: 401 \(Authorization: Bearer \*\*\*\)/, where);
      assert.match(text, /access_token=\*\*\* failed/, where);
      // The exception in the context, and the previous one in its chain, in each formatter's shape.
      if (logFormat === 'line') {
        assert.match(text, /\[previous exception\] \[object\] \(Error\(code: 0\): connect https:\/\/hooks\.test\/cb\?access_token=\*\*\*/, where);
      } else {
        const exception = records(lines).find((r) => r.message === 'Charge failed')!.context.exception as { message: string; previous: { message: string } };
        assert.equal(exception.message, 'GET https://api.test/v1/charges?api_key=*** failed: 401 (Authorization: Bearer ***)');
        assert.equal(exception.previous.message, 'connect https://hooks.test/cb?access_token=***');
      }
    }
  }

  const { app } = testApp({
    routes: [{ name: 'both', path: '/both', controller: (r: KernelRequest) => { r.logger.warning('app', `retrying https://hooks.test/cb?token=${CANARY}4`, { exception: upstream() }); throw upstream(); } }],
  });
  const page = await (await send(app, '/both')).text();
  const logs = logsTab(page);
  assert.ok(!logs.includes(CANARY), logs);
  assert.match(logs, /retrying https:\/\/hooks\.test\/cb\?token=\*\*\*/);
  assert.match(logs, /Uncaught Exception Error: &quot;GET https:\/\/api\.test\/v1\/charges\?api_key=\*\*\* failed/);
  assert.match(logs, /\[object\] \(Error\(code: 0\): GET https:\/\/api\.test\/v1\/charges\?api_key=\*\*\* failed: 401 \(Authorization: Bearer \*\*\*\)/);
  // The page's own heading keeps the message as thrown: Symfony's page shows the developer's exception as it is.
  assert.match(page, new RegExp(`<h1 class="exception-message">GET https://api\\.test/v1/charges\\?api_key=${CANARY}1`));
});

test('regression: headers logged as [name, value] entries or a rawHeaders list were written unmasked', async () => {
  const upstream = (r: KernelRequest) => {
    const headers = new Headers({ 'x-api-key': `${CANARY}1`, cookie: `sid=${CANARY}2; theme=dark`, authorization: `Bearer ${CANARY}3`, accept: 'application/json' });
    r.logger.warning('app', 'upstream call', {
      headers: [...headers],
      raw: ['X-Api-Key', `${CANARY}4`, 'Cookie', `sid=${CANARY}5`, 'Host', 'api.test'],
      // Not a header list: an odd length, a name that is no HTTP token. Left as logged.
      words: ['token', 'expired', 'again'],
      pair: ['not a header', 'kept'],
    });
  };
  const expected = {
    headers: [['accept', 'application/json'], ['authorization', 'Bearer ***'], ['cookie', 'sid=***; theme=***'], ['x-api-key', '***']],
    raw: ['X-Api-Key', '***', 'Cookie', 'sid=***', 'Host', 'api.test'],
    words: ['token', 'expired', 'again'],
    pair: ['not a header', 'kept'],
  };
  for (const logFormat of ['line', 'json'] as const) {
    const { app, lines } = testApp({ env: 'prod', debug: false, logFormat, routes: [{ name: 'l', path: '/l', controller: (r: KernelRequest) => { upstream(r); return HttpResponse.text('ok'); } }] });
    await send(app, '/l');
    const line = lines.find((l) => l.includes('upstream call'))!;
    assert.ok(!line.includes(CANARY), `${logFormat}: ${line}`);
    assert.ok(line.includes(JSON.stringify(expected)), `${logFormat}: ${line}`);
  }

  // The profile and the profiler's Logs panel, and the debug page's Logs tab.
  const { app } = testApp({
    routes: [
      { name: 'l', path: '/l', controller: (r: KernelRequest) => { upstream(r); return HttpResponse.html('<html><body>ok</body></html>'); } },
      { name: 'boom', path: '/boom', controller: (r: KernelRequest) => { upstream(r); throw new Error('upstream failed'); } },
    ],
  });
  const r = await send(app, '/l');
  await r.text();
  const profile = await app.services.profiler!.load(r.headers.get('x-debug-token')!, 2000);
  const record = profile!.logs.find((l) => l.message === 'upstream call')!;
  assert.deepEqual(record.context, expected);
  const panel = await (await send(app, `/_profiler/${r.headers.get('x-debug-token')}?panel=logs`)).text();
  assert.ok(!panel.includes(CANARY), panel);
  assert.match(panel, /sid=\*\*\*; theme=\*\*\*/);
  const logs = logsTab(await (await send(app, '/boom')).text());
  assert.ok(!logs.includes(CANARY), logs);
  assert.match(logs, /&quot;X-Api-Key&quot;,\s*&quot;\*\*\*&quot;/);
});

test('regression: a URL password or Bearer credential inside an encoded query value was masked in the profile but logged in clear (extra.url, request_uri)', async () => {
  const { app, lines } = testApp({ logFormat: 'json', logLevel: 'debug', routes: [{ name: 'setup', path: '/setup', controller: () => HttpResponse.text('ok') }] });
  const query = `dsn=${encodeURIComponent(`mysql://admin:${CANARY}@db`)}&h=${encodeURIComponent(`Bearer ${CANARY}`)}&page=2`;
  assert.equal((await send(app, `/setup?${query}`)).status, 200);
  const matched = records(lines).find((r) => r.message === 'Matched route "setup".');
  assert.ok(matched);
  const logged = lines.join('\n');
  assert.ok(!logged.includes(CANARY), logged);
  assert.equal(matched.context.request_uri, 'http://localhost/setup?dsn=mysql%3A%2F%2Fadmin%3A***%40db&h=Bearer%20***&page=2');
  assert.equal(((matched as unknown as { extra: { url: string } }).extra).url, '/setup?dsn=mysql%3A%2F%2Fadmin%3A***%40db&h=Bearer%20***&page=2');
});
