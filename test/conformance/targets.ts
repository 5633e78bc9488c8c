import { spawn, type ChildProcess } from 'node:child_process';
import { createApp, type AppOptions, type HttpResponse } from '../../src/index.ts';
import type { RequestSource } from '../../src/http/source.ts';
import { CUT_SHORT_BY, rawHttp, type RawRequest, type RawResponse } from '../support/raw-http.ts';

/** One way of running the service; the conformance suite runs unchanged against each. */
export interface Target {
  readonly name: string;
  /** `http://127.0.0.1:<port>` as clients see it. */
  readonly origin: string;
  send(request: RawRequest): Promise<RawResponse>;
  /**
   * The host closes a connection as soon as the client half-closes it (Bun.serve), so a client that
   * left mid-body gets no answer at all; the others still send theirs.
   */
  readonly closesOnClientHalfClose?: boolean;
  close(): Promise<void>;
}

/** In-process: the request goes through `app.handle` with a hand-made source, exactly as an adapter would. */
export function inProcessTarget(options: AppOptions = {}): Target {
  const logs: string[] = [];
  const app = createApp({ env: 'dev', logSink: (l) => logs.push(l), ...options, environment: {} });
  const origin = 'http://127.0.0.1:8000';
  return {
    name: 'in-process',
    origin,
    async send(req) {
      const bodyBytes = req.body === undefined ? null : new TextEncoder().encode(req.body);
      const source = handMadeSource(req.method, req.target, req.headers, bodyBytes, req.cutShort ? { pad: CUT_SHORT_BY, stream: cutShortStream } : undefined);
      const { response, terminate } = await app.handle(source);
      const seen = await asClientSees(req.method, response);
      terminate?.();
      return seen;
    },
    async close() {},
  };
}

/**
 * A RequestSource made by hand, as an adapter makes one: header names lower-cased, the test origin's
 * Host unless the request sets one (null removes it), a Content-Length for the body unless given.
 * `cut` declares more bytes than the body has and streams it its own way (a client that leaves mid-body).
 */
export function handMadeSource(
  method: string,
  target: string,
  headerValues: Readonly<Record<string, string | null>> | undefined,
  body: Uint8Array | null,
  cut?: { pad: number; stream: (bytes: Uint8Array) => ReadableStream<Uint8Array> },
): RequestSource {
  const headers = new Map<string, string>([['host', '127.0.0.1:8000']]);
  for (const [k, v] of Object.entries(headerValues ?? {})) {
    if (v === null) headers.delete(k.toLowerCase());
    else headers.set(k.toLowerCase(), v);
  }
  if (body && !headers.has('content-length')) headers.set('content-length', String(body.byteLength + (cut?.pad ?? 0)));
  return {
    method,
    target,
    scheme: 'http',
    fallbackHost: '127.0.0.1:8000',
    remoteAddress: '127.0.0.1',
    protocol: 'HTTP/1.1',
    header: (n) => headers.get(n) ?? null,
    headers: () => headers.entries(),
    body: () => (body ? (cut ? cut.stream(body) : new Blob([body as Uint8Array<ArrayBuffer>]).stream()) : null),
  };
}

/**
 * A handled response as a client reads it: the body as text (none for HEAD and bodiless statuses; an
 * event stream is cancelled unread, since it may never end) and repeated headers joined by a newline.
 */
export async function asClientSees(method: string, response: HttpResponse): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  let body = '';
  const type = response.headers.get('content-type') ?? '';
  if (typeof response.body === 'string') body = response.body;
  else if (response.body instanceof Uint8Array) body = new TextDecoder().decode(response.body);
  else if (response.body instanceof ReadableStream && type.startsWith('text/event-stream')) await response.body.cancel();
  else if (response.body) body = await new Response(response.body).text();
  if (method.toUpperCase() === 'HEAD' || response.isEmptyStatus()) body = '';
  const headers: Record<string, string> = {};
  for (const [k, v] of response.headers.entries()) headers[k] = k in headers ? `${headers[k]}\n${v}` : v;
  return { status: response.status, headers, body };
}

/**
 * In-process through `app.fetch`: a Fetch Request in, the Response read as a Fetch host would (on
 * Node that is the deferred Response of src/http/fetch-response.ts). Set-Cookie lines are joined
 * the way the other targets join repeated headers.
 */
export function fetchTarget(options: AppOptions = {}): Target {
  const app = createApp({ env: 'dev', logSink: () => {}, ...options, environment: {} });
  const origin = 'http://127.0.0.1:8000';
  return {
    name: 'in-process fetch',
    origin,
    async send(req) {
      const headers = new Headers({ host: '127.0.0.1:8000' });
      for (const [k, v] of Object.entries(req.headers ?? {})) {
        if (v === null) headers.delete(k);
        else headers.set(k, v);
      }
      const method = req.method.toUpperCase();
      const request = req.cutShort && req.body !== undefined
        ? new Request(origin + req.target, { method, headers, body: cutShortStream(new TextEncoder().encode(req.body)), duplex: 'half' } as RequestInit)
        : fetchRequest(origin + req.target, method, headers, req.body);
      const response = await app.fetch(request, { remoteAddress: '127.0.0.1', rawTarget: req.target });
      const out: Record<string, string> = {};
      response.headers.forEach((v, k) => {
        out[k] = k in out ? `${out[k]}\n${v}` : v;
      });
      const body = method === 'HEAD' ? '' : await response.text();
      return { status: response.status, headers: out, body };
    },
    async close() {},
  };
}

/** A body a host gives when its client left mid-body (RawRequest.cutShort): the bytes sent, then an error, as Node and Deno report it. */
function cutShortStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      sent = true;
      controller.enqueue(bytes);
    },
  });
}

/**
 * `new Request` refuses the methods Fetch forbids (TRACE, CONNECT, TRACK), but a server host such as
 * Deno.serve still hands them over; the kernel reads only these members of the request.
 */
function fetchRequest(url: string, method: string, headers: Headers, body: string | undefined): Request {
  const init = { method, headers, body: body === undefined || method === 'GET' || method === 'HEAD' ? undefined : body };
  try {
    return new Request(url, init);
  } catch {
    const carrier = new Request(url, { ...init, method: 'POST' });
    return { method, url: carrier.url, headers: carrier.headers, body: carrier.body, arrayBuffer: () => carrier.arrayBuffer() } as unknown as Request;
  }
}

/** A bundle started as its own process (`node dist/server.js`, `deno run dist/deno.js`) on a free port. */
export async function processTarget(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
  traits: Pick<Target, 'closesOnClientHalfClose'> = {},
): Promise<Target> {
  const child: ChildProcess = spawn(command, args, {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', APP_ENV: 'dev', LOG_LEVEL: 'warning', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no "listening" line within 30 s. Output:\n${output}`)), 30000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on http:\/\/[^:\s]+:(\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${name} exited early (${code}):\n${output}`)));
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    ...traits,
    name,
    origin,
    send: (req) => rawHttp(port, `127.0.0.1:${port}`, req),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
