// serve()'s sendTimeout against a client that pipelines requests and stops reading: the answers
// written while they waited behind another one (no socket yet) are written out when node:http hands
// them the socket, and what the client leaves unread then must arm the timer as for any other answer.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { HttpResponse } from '../../src/http/response.ts';
import { sleep, start, waitFor, type Handler } from '../support/node-host.ts';

/** Each answer: 64 KB, so that a few hundred of them overflow the socket buffers of a client that does not read. */
const BODY = Buffer.alloc(64 * 1024, 97);
const PIPELINED = 400;

const fixed: Handler = () => new HttpResponse(BODY);
const streamed: Handler = () =>
  new HttpResponse(
    new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 4; i++) c.enqueue(BODY.subarray(i * 16 * 1024, (i + 1) * 16 * 1024));
        c.close();
      },
    }),
  );

/** Computed a moment later: the answer gets its socket first, then its stream's chunks, held for a turn, go out together. */
const streamedLater: Handler = (source) => sleep(2).then(() => streamed(source));

describe('serve(): sendTimeout with pipelined requests', { timeout: 90_000 }, () => {
  test('regression: sendTimeout never fired for pipelined answers, so a client that pipelined requests and stopped reading held its connection', async () => {
    const cases: { name: string; handler: Handler; sync: boolean; batch: boolean }[] = [
      { name: 'async answers', handler: fixed, sync: false, batch: true },
      { name: 'sync answers', handler: fixed, sync: true, batch: true },
      { name: 'sync answers, batch: false', handler: fixed, sync: true, batch: false },
      { name: 'streamed answers', handler: streamed, sync: false, batch: true },
      { name: 'streamed answers computed after their turn', handler: streamedLater, sync: false, batch: true },
    ];
    for (const { name, handler, sync, batch } of cases) {
      const { server, seen } = await start(handler, { sendTimeout: 300, batch }, sync);
      const connections = () => new Promise<number>((resolve) => server.server.getConnections((_err, n) => resolve(n)));
      const client = net.connect(server.port, '127.0.0.1');
      client.on('error', () => {});
      await new Promise((resolve) => client.once('connect', resolve));
      client.pause(); // never reads
      client.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(PIPELINED));
      try {
        await waitFor(() => seen.length >= 2, 3000, `${name}: the first pipelined requests to be handled`);
        // A stalled client is no idle one: the server still holds answers for it after the first ones.
        await sleep(100);
        assert.equal(await connections(), 1, `${name}: the connection is open while its answers are written`);
        assert.ok(seen.length < PIPELINED, `${name}: the client's buffers filled before every answer was written (${seen.length} handled)`);
        const deadline = Date.now() + 10_000;
        while ((await connections()) > 0) {
          if (Date.now() > deadline) assert.fail(`${name}: the connection of a client that pipelined ${PIPELINED} requests and stopped reading was still open after 10 s (sendTimeout 300 ms); ${seen.length} requests handled`);
          await sleep(50);
        }
      } finally {
        client.destroy();
      }
    }
  });
});
