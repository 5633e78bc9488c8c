/**
 * The request side of the native adapter: `IncomingSource`, the kernel's lazy view of an
 * `IncomingMessage`, and the `Expect: 100-continue` mark that `serve()` sets and the source clears
 * when the body is really read. Apart from the writer: this is all the kernel reads, nothing it writes.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { RequestSource } from '../../http/source.ts';
import { noop } from './failures.ts';
import { clientGoneError, incomingBodyStream } from './incoming-body.ts';

/** Set on requests with `Expect: 100-continue` until the `100 Continue` has been written. */
export const AWAITING_CONTINUE = Symbol('awaitingContinue');
export type ContinuableRequest = http.IncomingMessage & { [AWAITING_CONTINUE]?: http.ServerResponse };

/**
 * The kernel's view of an `IncomingMessage`. Constructed per request with plain fields; header values
 * are read on demand from `req.headers` (built lazily by Node, duplicates joined as the Fetch `Headers`
 * would: `, `, `; ` for `cookie` — the server runs with `joinDuplicateHeaders`).
 */
export class IncomingSource implements RequestSource {
  readonly method: string;
  readonly target: string;
  readonly scheme: 'http' | 'https';
  readonly remoteAddress: string;
  readonly protocol: string;
  /** 0 = body not asked for, 1 = stream handed out, 2 = stream cancelled by its reader. */
  bodyState = 0;
  private readonly req: http.IncomingMessage;

  constructor(req: http.IncomingMessage) {
    this.req = req;
    this.method = req.method ?? 'GET';
    this.target = req.url ?? '/';
    const socket = req.socket as Socket & { encrypted?: boolean };
    this.scheme = socket.encrypted ? 'https' : 'http';
    this.remoteAddress = socket.remoteAddress ?? '';
    this.protocol = 'HTTP/' + req.httpVersion;
  }

  /** The connection's local address and port (Symfony's SERVER_ADDR, SERVER_PORT), asked only without a Host. */
  get fallbackHost(): string {
    const socket = this.req.socket;
    const address = socket.localAddress;
    if (!address) return '';
    const host = address.startsWith('::ffff:') ? address.slice(7) : address.includes(':') ? `[${address}]` : address;
    return socket.localPort ? `${host}:${socket.localPort}` : host;
  }

  header(name: string): string | null {
    const v = this.req.headers[name];
    if (typeof v === 'string') return v;
    return Array.isArray(v) ? v.join(', ') : null;
  }

  *headers(): Iterable<[string, string]> {
    const lines = this.headerLines();
    for (let i = 0; i < lines.length; i += 2) yield [lines[i]!, lines[i + 1]!];
  }

  headerLines(): string[] {
    const all = this.req.headers;
    const out: string[] = [];
    for (const name in all) {
      if (!Object.prototype.hasOwnProperty.call(all, name)) continue;
      const v = all[name];
      if (typeof v === 'string') out.push(name, v);
      else if (Array.isArray(v)) out.push(name, v.join(', '));
    }
    return out;
  }

  body(): ReadableStream<Uint8Array> | null {
    if (this.bodyState !== 0) throw new TypeError('The request body can be read only once.');
    const h = this.req.headers;
    if (h['transfer-encoding'] === undefined) {
      const cl = h['content-length'];
      if (cl === undefined || cl === '0') return null;
    }
    this.bodyState = 1;
    this.sendContinue();
    return incomingBodyStream(this.req, () => (this.bodyState = 2));
  }

  /**
   * The whole body straight from the socket, no web stream (a stream per POST costs more than the rest
   * of the request). Past `limit` it stops, discards the rest and resolves null (the kernel answers 413).
   */
  readBody(limit: number): Promise<Uint8Array | null> {
    if (this.bodyState !== 0) return Promise.reject(new TypeError('The request body can be read only once.'));
    const req = this.req;
    const h = req.headers;
    if (h['transfer-encoding'] === undefined && (h['content-length'] === undefined || h['content-length'] === '0')) return Promise.resolve(new Uint8Array(0));
    // Asked for after the connection closed (a slow listener, a request queued in a batch): its events
    // are over and would never settle the read.
    if (req.destroyed) return Promise.reject(clientGoneError());
    this.bodyState = 1;
    this.sendContinue();
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      const done = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        total += chunk.length;
        if (total > limit) {
          done();
          this.bodyState = 2;
          // Discard the rest so the 413 can still be written; the writer then closes the connection.
          req.on('error', noop);
          req.resume();
          resolve(null);
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        done();
        resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
      };
      const onError = (err: Error) => {
        done();
        reject(err);
      };
      const onClose = () => {
        if (req.complete) return;
        done();
        reject(clientGoneError());
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
    });
  }

  /**
   * `Expect: 100-continue`: the client waits for this before sending the body. It goes out only when
   * the kernel really reads the body — a request refused first (413 on its Content-Length) never gets
   * it, so the client never sends the body at all.
   */
  private sendContinue(): void {
    const pending = (this.req as ContinuableRequest)[AWAITING_CONTINUE];
    if (pending) {
      (this.req as ContinuableRequest)[AWAITING_CONTINUE] = undefined;
      pending.writeContinue();
    }
  }
}
