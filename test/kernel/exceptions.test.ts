// The HTTP exceptions as a client and an operator see them: status, headers, messages, log lines.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import * as lib from '../../src/index.ts';
import { createApp, HttpException, NotFoundHttpException, type RouteDefinition } from '../../src/index.ts';

function appThrowing(debug: boolean, make: () => unknown) {
  const lines: string[] = [];
  const routes: RouteDefinition[] = [{ name: 't', path: '/t', controller: () => { throw make(); } }];
  const app = createApp({ debug, env: debug ? 'dev' : 'prod', environment: {}, logSink: (l) => lines.push(l), routes });
  return { lines, get: (accept = 'application/json') => app.fetch(new Request('http://localhost/t', { headers: { accept } })) };
}

interface Problem {
  title: string;
  status: number;
  detail: string;
  class: string;
}

test('regression: Symfony 5.4\'s HttpException subclasses (409, 410, 411, 406, 412, 428, 503, 429, 422, 415) were missing', async () => {
  const expected: [string, number, string][] = [
    ['NotAcceptableHttpException', 406, 'Not Acceptable'],
    ['ConflictHttpException', 409, 'Conflict'],
    ['GoneHttpException', 410, 'Gone'],
    ['LengthRequiredHttpException', 411, 'Length Required'],
    ['PreconditionFailedHttpException', 412, 'Precondition Failed'],
    ['UnsupportedMediaTypeHttpException', 415, 'Unsupported Media Type'],
    ['UnprocessableEntityHttpException', 422, 'Unprocessable Entity'],
    ['PreconditionRequiredHttpException', 428, 'Precondition Required'],
  ];
  const classes = lib as unknown as Record<string, new (message?: string, previous?: unknown, headers?: Record<string, string>) => Error>;
  for (const [name, status, title] of expected) {
    const Class = classes[name];
    assert.equal(typeof Class, 'function', `${name} is exported`);
    const { get } = appThrowing(true, () => new Class!('why', undefined, { 'X-Reason': 'r' }));
    const response = await get();
    assert.equal(response.status, status, name);
    assert.equal(response.headers.get('x-reason'), 'r', name);
    const problem = (await response.json()) as Problem;
    assert.deepEqual([problem.class, problem.title, problem.detail], [name, title, 'why']);
  }
});

test('regression: ServiceUnavailableHttpException and TooManyRequestsHttpException were missing; their first argument is Retry-After, as in Symfony', async () => {
  const { ServiceUnavailableHttpException, TooManyRequestsHttpException } = lib;
  const cases: [() => Error, number, string | null][] = [
    [() => new ServiceUnavailableHttpException(120, 'down for maintenance'), 503, '120'],
    [() => new ServiceUnavailableHttpException('Wed, 21 Oct 2026 07:28:00 GMT'), 503, 'Wed, 21 Oct 2026 07:28:00 GMT'],
    [() => new ServiceUnavailableHttpException(), 503, null],
    [() => new TooManyRequestsHttpException(60, 'slow down', undefined, { 'X-RateLimit-Limit': '10' }), 429, '60'],
    [() => new TooManyRequestsHttpException(0), 429, null],
  ];
  for (const [make, status, retryAfter] of cases) {
    for (const debug of [false, true]) {
      const response = await appThrowing(debug, make).get('text/html');
      assert.equal(response.status, status);
      assert.equal(response.headers.get('retry-after'), retryAfter, `${make}`);
      await response.text();
    }
  }
  const limited = await appThrowing(false, cases[3]![0]).get();
  assert.equal(limited.headers.get('x-ratelimit-limit'), '10');
  assert.equal(((await limited.json()) as Problem).title, 'Too Many Requests');
});

test('regression: AccessDeniedHttpException\'s default message was the security AccessDeniedException\'s "Access Denied."; Symfony\'s is empty', async () => {
  const { get, lines } = appThrowing(true, () => new lib.AccessDeniedHttpException());
  const response = await get();
  assert.equal(response.status, 403);
  assert.equal(((await response.json()) as Problem).detail, '');
  assert.ok(lines.some((l) => l.includes('request.ERROR: Uncaught Exception AccessDeniedHttpException: "" at ')), lines.join('\n'));
});

test('regression: UnauthorizedHttpException sent no WWW-Authenticate for an empty challenge; Symfony always sets it', async () => {
  for (const [challenge, extra] of [['', {}], ['Basic realm="members"', { 'X-Extra': 'kept' }]] as const) {
    const response = await appThrowing(false, () => new lib.UnauthorizedHttpException(challenge, 'who are you?', undefined, extra)).get();
    assert.equal(response.status, 401);
    assert.ok(response.headers.has('www-authenticate'), JSON.stringify(challenge));
    assert.equal(response.headers.get('www-authenticate'), challenge);
    if (challenge) assert.equal(response.headers.get('x-extra'), 'kept');
  }
});

test('regression: MethodNotAllowedHttpException took no headers; they are merged under Allow, as in Symfony', async () => {
  const response = await appThrowing(false, () => new lib.MethodNotAllowedHttpException(['get', 'post'], 'no', undefined, { 'Retry-After': '5', Allow: 'PUT' })).get();
  assert.equal(response.status, 405);
  assert.equal(response.headers.get('allow'), 'GET, POST', 'Allow is the allowed methods, whatever the headers say');
  assert.equal(response.headers.get('retry-after'), '5');
});

test('regression: an Error from another realm (a vm context) was shown as NonErrorThrown "Non-error value thrown: {}"', async () => {
  const foreign = () => vm.runInNewContext('new TypeError("from another realm")') as unknown;
  const { get, lines } = appThrowing(true, foreign);
  const page = await get('text/html');
  assert.equal(page.status, 500);
  assert.equal(decodeURIComponent(page.headers.get('x-debug-exception') ?? ''), 'from another realm');
  const body = await page.text();
  assert.ok(body.includes('<title>from another realm (500 Internal Server Error)</title>'));
  assert.ok(body.includes('<abbr title="TypeError">TypeError</abbr>'));
  assert.ok(lines.some((l) => /request\.CRITICAL: Uncaught Exception TypeError: "from another realm" at evalmachine\.<anonymous> line 1 /.test(l)), lines.join('\n'));
  const problem = (await (await get()).json()) as Problem;
  assert.deepEqual([problem.class, problem.detail], ['TypeError', 'from another realm']);
});

test('regression: an HTTP exception built with a message that is no string (a null-prototype object) left every later error of the process without a stack: the debug page and X-Debug-Exception-File lost their file and line', async () => {
  const saved = Error.stackTraceLimit;
  try {
    const routes: RouteDefinition[] = [
      { name: 'refused', path: '/refused', controller: () => { throw new lib.BadRequestHttpException(Object.create(null) as string); } },
      { name: 'later', path: '/later', controller: () => { throw new Error('a later failure'); } },
    ];
    const app = createApp({ debug: true, env: 'dev', environment: {}, logSink: () => {}, routes });
    const first = await app.fetch(new Request('http://localhost/refused'));
    assert.equal(first.status, 500, 'the message the Error constructor refused is the controller\'s TypeError');
    await first.text();
    const later = await app.fetch(new Request('http://localhost/later'));
    assert.equal(later.status, 500);
    assert.match(decodeURIComponent(later.headers.get('x-debug-exception-file') ?? ''), /exceptions\.test\.ts:\d+$/);
    await later.text();
  } finally {
    Error.stackTraceLimit = saved;
  }
});

test('regression: an application\'s own HttpException subclass was shown under its parent\'s class name (problem document, log line, error page)', async () => {
  class PaymentRequiredHttpException extends HttpException {
    constructor() {
      super(402, 'Pay first.');
    }
  }
  class ProductNotFoundException extends NotFoundHttpException {}
  const lines: string[] = [];
  const app = createApp({
    debug: true,
    logSink: (line) => lines.push(line),
    routes: [
      { name: 'pay', path: '/pay', controller: () => { throw new PaymentRequiredHttpException(); } },
      { name: 'product', path: '/product', controller: () => { throw new ProductNotFoundException('No product 7.'); } },
    ],
  });
  for (const [path, expected] of [['/pay', 'PaymentRequiredHttpException'], ['/product', 'ProductNotFoundException']] as const) {
    const json = await app.fetch(new Request(`http://localhost${path}`, { headers: { accept: 'application/json' } }));
    assert.equal(((await json.json()) as { class: string }).class, expected);
    const page = await (await app.fetch(new Request(`http://localhost${path}`))).text();
    assert.match(page, new RegExp(`<title>[^<]*\\(${json.status} `));
    assert.ok(page.includes(expected), `${expected} on the page`);
    assert.ok(lines.some((l) => l.includes(`Uncaught Exception ${expected}:`)), lines.join('\n'));
  }
  // A class that declares its name keeps it; an anonymous one shows its parent's.
  assert.equal(new NotFoundHttpException('x').className, 'NotFoundHttpException');
  assert.equal(new (class extends NotFoundHttpException {})('x').className, 'NotFoundHttpException');
});
