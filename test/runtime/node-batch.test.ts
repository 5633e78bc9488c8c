// Batching under load (src/runtime/node-batch.ts): when requests are answered, and that every one is.
// The unit part drives the wrapper turn by turn with stand-in requests; the last test runs a real
// server under concurrent keep-alive load and checks every response.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { batchUnderLoad } from '../../src/runtime/node-batch.ts';
import { serve, type NodeServer } from '../../src/runtime/node.ts';
import { HttpResponse } from '../../src/http/response.ts';
import { keepAliveClient } from '../support/keep-alive.ts';

type Req = http.IncomingMessage;
type Res = http.ServerResponse;

/** Resolves after every callback already queued for the current turn's check phase. */
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A wrapper around a listener that records which stand-in request it answered. */
function recorder(fail?: (id: number) => boolean) {
  const answered: number[] = [];
  const errors: unknown[] = [];
  const listener = batchUnderLoad(
    (req: Req) => {
      const id = (req as unknown as { id: number }).id;
      if (fail?.(id)) throw new Error(`listener failed on ${id}`);
      answered.push(id);
    },
    (err) => errors.push(err),
  );
  let next = 0;
  /** Delivers `count` requests in the current turn; returns their ids and how many were answered at once. */
  const deliver = (count: number) => {
    const ids: number[] = [];
    let atOnce = 0;
    for (let i = 0; i < count; i++) {
      const id = next++;
      ids.push(id);
      listener({ id } as unknown as Req, {} as Res);
      if (answered.includes(id)) atOnce++;
    }
    return { ids, atOnce };
  };
  return { listener, answered, errors, deliver };
}

describe('node adapter: batching under load', { timeout: 10_000 }, () => {
  test('one request per turn is answered inside the call, never deferred', async () => {
    const r = recorder();
    for (let turn = 0; turn < 100; turn++) {
      const { atOnce } = r.deliver(1);
      assert.equal(atOnce, 1, `turn ${turn}`);
      await endOfTurn();
    }
    assert.equal(r.listener.batching, false);
  });

  test('many requests per turn: they are answered together at the end of their turn, in arrival order', async () => {
    const r = recorder();
    let batchedTurns = 0;
    for (let turn = 0; turn < 20; turn++) {
      const { ids, atOnce } = r.deliver(20);
      if (atOnce === 0) batchedTurns++;
      await endOfTurn();
      // Whatever the mode, every request of the turn has its answer when the turn is over.
      assert.deepEqual(r.answered.slice(-20), ids, `turn ${turn}`);
    }
    assert.equal(r.listener.batching, true);
    assert.ok(batchedTurns >= 15, `only ${batchedTurns} of 20 turns were batched`);
    assert.equal(r.answered.length, 400);
  });

  test('when the load falls back to one request per turn, requests are answered at once again', async () => {
    const r = recorder();
    for (let turn = 0; turn < 10; turn++) {
      r.deliver(20);
      await endOfTurn();
    }
    assert.equal(r.listener.batching, true);
    // The average of requests per turn decays: from 20 it takes thirteen quiet turns to fall below 1.5.
    let lastDeferred = -1;
    for (let turn = 0; turn < 30; turn++) {
      if (r.deliver(1).atOnce === 0) lastDeferred = turn;
      await endOfTurn();
    }
    assert.equal(r.listener.batching, false);
    assert.ok(lastDeferred >= 0 && lastDeferred < 16, `last deferred quiet turn: ${lastDeferred}`);
    assert.equal(r.answered.length, 230);
  });

  test('a listener that throws in a batch: the error is reported and the rest of the batch is still answered', async () => {
    const r = recorder((id) => id % 7 === 3);
    for (let turn = 0; turn < 10; turn++) {
      r.deliver(20);
      await endOfTurn();
    }
    const expected = Array.from({ length: 200 }, (_, i) => i).filter((id) => id % 7 !== 3);
    assert.deepEqual(r.answered, expected);
    assert.equal(r.errors.length, 200 - expected.length);
    assert.match(String(r.errors[0]), /listener failed on 3/);
  });
});

describe('node adapter: batching on a real server', { timeout: 30_000 }, () => {
  const servers: NodeServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.close(100)));
  });

  test('under concurrent keep-alive load the server batches, and every client gets its own answer', async () => {
    let listener: { batching?: boolean } = {};
    let sawBatching = false;
    let pipelinedWhileBatching = 0;
    const app = {
      config: {},
      handle(source: { target: string; method: string }) {
        sawBatching ||= listener.batching === true;
        if (listener.batching && source.target.startsWith('/pipelined/')) pipelinedWhileBatching++;
        return { response: HttpResponse.text(`answer to ${source.method} ${source.target}`), terminate: null };
      },
    };
    const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
    servers.push(server);
    listener = server.server.listeners('request')[0] as { batching?: boolean };
    const client = keepAliveClient(server.port);
    const ask = (path: string) => client.get(path).then(({ status, body }) => `${status} ${body}`);
    const loadRound = async (round: number) => {
      const paths = Array.from({ length: 100 }, (_, i) => `/r${round}/c${i}?q=${i}`);
      const answers = await Promise.all(paths.map(ask));
      assert.deepEqual(answers, paths.map((p) => `200 answer to GET ${p}`), `round ${round}`);
    };
    try {
      let round = 0;
      while (round < 30 && !(sawBatching && round >= 10)) await loadRound(round++);
      assert.ok(sawBatching, 'the server never switched to batching under 100 concurrent requests');
      // The rounds' last requests come a few per turn; load again until the server is batching.
      while (round < 40 && !listener.batching) await loadRound(round++);
    } finally {
      client.close();
    }

    // Pipelined requests on one connection arrive in one turn: answered in their order, each its own.
    const paths = Array.from({ length: 20 }, (_, i) => `/pipelined/${i}`);
    const wire = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1');
      let data = '';
      socket.setEncoding('latin1');
      socket.on('data', (d) => {
        data += d;
        if (data.split('answer to GET').length > paths.length) socket.end();
      });
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
    });
    assert.deepEqual([...wire.matchAll(/answer to GET (\/pipelined\/\d+)/g)].map((m) => m[1]), paths);
    assert.equal(pipelinedWhileBatching, paths.length, 'the pipelined requests were not handled in a batch');
  });

  test('clients that leave while their requests wait in a batch: the others are answered, nothing is reported', async () => {
    const reported: string[] = [];
    let listener: { batching?: boolean } = {};
    let handledWhileBatching = 0;
    const app = {
      config: {},
      log: (_level: string, message: string) => void reported.push(message),
      handle(source: { target: string; method: string; readBody?(limit: number): Promise<Uint8Array | null> }) {
        if (listener.batching) handledWhileBatching++;
        if (source.method === 'POST') {
          return source.readBody!(1024).then(
            (body) => ({ response: HttpResponse.text(`read ${body?.length ?? 0}`), terminate: null }),
            () => ({ response: HttpResponse.text('client gone'), terminate: null }),
          );
        }
        return { response: HttpResponse.text(`answer to ${source.target}`), terminate: null };
      },
    };
    const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
    servers.push(server);
    listener = server.server.listeners('request')[0] as { batching?: boolean };
    /** Opens a connection; `send` writes the request and, with `leave`, destroys the socket right after. */
    const open = () =>
      new Promise<{ send(bytes: string, leave: boolean): Promise<string> }>((ready) => {
        const socket = net.connect(server.port, '127.0.0.1');
        let data = '';
        const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(data)));
        socket.setEncoding('latin1');
        socket.on('error', () => {});
        socket.on('data', (d) => {
          data += d;
          if (/\r\n\r\n[\s\S]*(answer to|read|client gone)/.test(data)) socket.end();
        });
        socket.on('connect', () =>
          ready({
            send(bytes, leave) {
              socket.write(bytes, () => leave && socket.destroy());
              return closed;
            },
          }),
        );
      });
    for (let round = 0; round < 10; round++) {
      const connections = await Promise.all(Array.from({ length: 60 }, open));
      await new Promise((resolve) => setTimeout(resolve, 20)); // the server has accepted them all
      // Every request written in the same tick: the server finds them ready in one turn.
      const jobs = connections.map((c, i) => {
        const leave = i % 3 === 0;
        const bytes = i % 2 === 0 ? `GET /g${round}-${i} HTTP/1.1\r\nHost: x\r\n\r\n` : `POST /p${round}-${i} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello`;
        return c.send(bytes, leave).then((data) => ({ i, leave, data }));
      });
      for (const { i, leave, data } of await Promise.all(jobs)) {
        if (leave) continue;
        assert.match(data, /^HTTP\/1\.1 200 /, `round ${round}, client ${i}`);
        assert.ok(data.endsWith(i % 2 === 0 ? `answer to /g${round}-${i}` : 'read 5'), `round ${round}, client ${i}: ${data.slice(-40)}`);
      }
    }
    assert.ok(handledWhileBatching > 0, 'no request was handled in a batch');
    assert.deepEqual(reported, []);
    const after = await new Promise<string>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: server.port, path: '/still-up', agent: false }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });
    assert.equal(after, 'answer to /still-up');
  });
});
