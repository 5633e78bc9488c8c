// HEAD on a real Deno server: the same headers as GET (CONTRACT §9), streamed and fixed bodies.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { startDenoFixture } from '../support/deno-fixture.ts';
import { rawHttp } from '../support/raw-http.ts';

let child: ChildProcess | undefined;
after(() => void child?.kill('SIGKILL'));

async function start(): Promise<number> {
  const fixture = await startDenoFixture('test/runtime/fixtures/deno-stream-server.mjs');
  child = fixture.child;
  return fixture.port;
}

test('regression: on Deno, HEAD of a streamed response declared Content-Length: 0 where GET is chunked', { timeout: 60_000 }, async () => {
  const port = await start();
  const host = `127.0.0.1:${port}`;
  const get = await rawHttp(port, host, { method: 'GET', target: '/stream' });
  assert.equal(get.body, 'streamed');
  assert.equal(get.headers['content-length'], undefined, 'GET is chunked');
  const head = await rawHttp(port, host, { method: 'HEAD', target: '/stream' });
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-length'], undefined, `HEAD declares no length either: ${JSON.stringify(head.headers)}`);
  assert.equal(head.headers['content-type'], get.headers['content-type']);

  const fixedGet = await rawHttp(port, host, { method: 'GET', target: '/fixed' });
  const fixedHead = await rawHttp(port, host, { method: 'HEAD', target: '/fixed' });
  assert.equal(fixedHead.headers['content-length'], fixedGet.headers['content-length'], 'a fixed body keeps GET\'s length');
  assert.equal(fixedHead.headers['content-length'], '10');
});
