// Helpers for the Node host's tests (test/runtime/node*.test.ts): a stub app that records what the
// host asks of it, servers on free ports closed after the file's tests, raw sockets and small waits.
import { after } from 'node:test';
import http from 'node:http';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { serve, type NodeApp, type NodeServer, type NodeResponse } from '../../src/runtime/node.ts';
import type { RequestSource } from '../../src/http/source.ts';

export type Handler = (source: RequestSource) => NodeResponse | Promise<NodeResponse>;

export interface Stub {
  app: NodeApp;
  seen: RequestSource[];
  logs: string[];
  terminated: string[];
}

/**
 * A tiny app: `handler` computes the response; requests, log lines and terminate calls are recorded.
 * `sync`: `handle` answers without a promise when the handler does (as the kernel does for
 * synchronous listeners and controllers).
 */
export function stubApp(handler: Handler, sync = false): Stub {
  const stub: Stub = {
    seen: [],
    logs: [],
    terminated: [],
    app: {
      config: {},
      handle(source) {
        stub.seen.push(source);
        const handled = (response: NodeResponse) => ({ response, terminate: () => void stub.terminated.push(source.target) });
        const response = handler(source);
        if (sync && !(response instanceof Promise)) return handled(response);
        return Promise.resolve(response).then(handled);
      },
      log(_level, message) {
        stub.logs.push(message);
      },
    },
  };
  return stub;
}

/** Every server `start` made, closed after the importing file's tests. */
export const servers: NodeServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close(100)));
});

export async function start(handler: Handler, options: Parameters<typeof serve>[1] = {}, sync = false): Promise<Stub & { server: NodeServer }> {
  const stub = stubApp(handler, sync);
  const server = await serve(stub.app, { port: 0, hostname: '127.0.0.1', handleSignals: false, ...options });
  servers.push(server);
  return { ...stub, server };
}

/** Sends raw bytes; resolves with everything received once the server closes, or after `waitMs`. */
export function raw(port: number, bytes: string, waitMs = 1500): Promise<{ data: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data, closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(bytes);
  });
}

export function get(port: number, path: string, init: http.RequestOptions = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, agent: false, ...init }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.setTimeout(3000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms))),
  ]);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}


/**
 * A server in a child process (`node --import tsx <fixture>`) that prints `PORT <n>` once listening:
 * its port, its exit (code and signal) and its stderr so far.
 */
export function childServer(fixture: string, env: Record<string, string> = {}) {
  const proc = spawn(process.execPath, ['--import', 'tsx', fixture], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const port = new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`child exited early (${code}): ${stderr}`)));
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  return { proc, port, exit, stderr: () => stderr };
}
