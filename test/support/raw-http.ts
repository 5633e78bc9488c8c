import { connect } from 'node:net';

/** A request exactly as written on the wire: odd methods, raw targets and bad Host headers included. */
export interface RawRequest {
  method: string;
  target: string;
  /** Header names as given; `host` defaults to the target's host, `null` omits a header. */
  headers?: Record<string, string | null>;
  body?: string;
  /**
   * The client leaves mid-body: `Content-Length` declares CUT_SHORT_BY bytes more than `body`, and the
   * client closes its side of the connection once `body` is written (a half-close: it can still read).
   */
  cutShort?: boolean;
}

/** How many declared body bytes a `cutShort` request never sends. */
export const CUT_SHORT_BY = 100;

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with '\n'. */
  headers: Record<string, string>;
  body: string;
}

/** Sends one request with `Connection: close` over a fresh socket and parses the response. */
export function rawHttp(port: number, host: string, request: RawRequest, timeoutMs = 10000): Promise<RawResponse> {
  const headers: Record<string, string | null> = { host, connection: 'close', ...lower(request.headers ?? {}) };
  if (request.body !== undefined && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) {
    headers['content-length'] = String(Buffer.byteLength(request.body) + (request.cutShort ? CUT_SHORT_BY : 0));
  }
  let head = `${request.method} ${request.target} HTTP/1.1\r\n`;
  for (const [k, v] of Object.entries(headers)) if (v !== null) head += `${k}: ${v}\r\n`;
  const payload = Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), Buffer.from(request.body ?? '', 'utf8')]);

  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`rawHttp: no complete response within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('connect', () => (request.cutShort ? socket.end(payload) : socket.write(payload)));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (e) => {
      clearTimeout(timer);
      // A reset after a complete response still counts as that response.
      if (chunks.length) resolveFrom(); else reject(e);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolveFrom();
    });
    let done = false;
    function resolveFrom() {
      if (done) return;
      done = true;
      try {
        resolve(parseResponse(Buffer.concat(chunks), request.method.toUpperCase() === 'HEAD'));
      } catch (e) {
        reject(e);
      }
    }
  });
}

function lower(h: Record<string, string | null>): Record<string, string | null> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

export function parseResponse(raw: Buffer, isHead: boolean): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`rawHttp: incomplete response: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}\n${value}` : value;
  }
  let body = raw.subarray(end + 4);
  if (isHead) body = Buffer.alloc(0);
  else if (headers['transfer-encoding']?.includes('chunked')) body = dechunk(body);
  return { status, headers, body: body.toString('utf8') };
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  while (i < buf.length) {
    const lineEnd = buf.indexOf('\r\n', i);
    if (lineEnd < 0) break;
    const size = parseInt(buf.subarray(i, lineEnd).toString('latin1'), 16);
    if (!size) break;
    out.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
    i = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}
