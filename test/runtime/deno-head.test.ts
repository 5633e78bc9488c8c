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

test('regression: on Deno a streamed response that failed mid-body was logged without the request (Deno\'s onError gets the error alone)', { timeout: 60_000 }, async () => {
  const fixture = await startDenoFixture('test/runtime/fixtures/deno-stream-server.mjs');
  try {
    const response = await fetch(`http://127.0.0.1:${fixture.port}/fails?token=secret`);
    assert.equal(response.status, 200, 'the head was out before the failure');
    await assert.rejects(response.text(), 'the answer is cut off, not completed');
    const line = await waitForLine(fixture.output, /The response body stream failed: Error: upstream went away/);
    assert.match(line, /"url":"\/fails\?token=\*\*\*","http_method":"GET"/, line);
  } finally {
    fixture.child.kill('SIGKILL');
  }
});

async function waitForLine(output: () => string, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const line = output().split('\n').find((l) => pattern.test(l));
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no line matching ${pattern} in:\n${output()}`);
}
