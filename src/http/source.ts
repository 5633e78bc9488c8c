/**
 * What the kernel needs from the host to read a request. Hosts build one per request: from a Fetch
 * `Request` (any Fetch host, tests) or straight from a runtime's native request (the Node adapter),
 * so that nothing is parsed or copied until a listener asks for it.
 */
export interface RequestSource {
  /** The method as the client sent it (not upper-cased yet). */
  readonly method: string;
  /** The raw request target: path plus optional `?query`, never resolved against a base. */
  readonly target: string;
  /** Scheme of the connection the request arrived on. */
  readonly scheme: 'http' | 'https';
  /**
   * Authority to use when the `Host` header is missing or empty (Symfony's SERVER_NAME/SERVER_ADDR and
   * SERVER_PORT): the URL a Fetch host built (Deno puts its own address there), the local address of
   * the connection on Node.
   */
  readonly fallbackHost: string;
  /** Peer address of the connection ('' when the host does not say). */
  readonly remoteAddress: string;
  /** `HTTP/1.1`, `HTTP/1.0`, ... ('HTTP/1.1' when unknown). */
  readonly protocol: string;
  /** One header, lower-case name; several values joined as the Fetch `Headers` would. */
  header(name: string): string | null;
  /** All headers, lower-case names. */
  headers(): Iterable<[string, string]>;
  /** Optional: the same as one flat list, name, value, name, value… (no iterator; the profiler reads every request's). */
  headerLines?(): string[];
  /** The body stream, or null when there is none. Read at most once. */
  body(): ReadableStream<Uint8Array> | null;
  /**
   * Optional fast path: the whole body in one buffer, without a web stream (the Node adapter reads
   * its socket directly). Resolves to null when it is larger than `limit` (reading stops there).
   * Either this or `body()` is used, once.
   */
  readBody?(limit: number): Promise<Uint8Array | null>;
  /** Optional: true when the host knows there is no body at all (a Fetch GET or HEAD), so nothing need be checked. */
  hasNoBody?(): boolean;
  /**
   * Optional: keep the headers and the peer address readable after the response is sent. A host may
   * close its request then (Deno 2.9 closes every request: its handler info no longer answers the peer
   * address, and the headers of a request that asks for an upgrade go too); the profiler calls this
   * before the response leaves, because it reads the request again in kernel.terminate.
   */
  retain?(): void;
}

/**
 * Connection facts a Fetch host can pass beside the Request (Deno's `info`, the Node adapter, tests):
 * an object literal, or `denoConnectionInfo(info)`; what else a host passes there is sorted out by
 * `fetchSource`. `remoteAddress` is read only when something asks for the client address (it may be a getter).
 */
export interface ConnectionInfo {
  /** Peer IP address. */
  readonly remoteAddress?: string | undefined;
  /**
   * The host reads a request body whole (`arrayBuffer()`) faster than through its stream, and holds
   * a body to its declared Content-Length (Deno.serve). Small bodies with a declared length within
   * BODY_LIMIT are then read in one call (see FetchSource.readBody).
   */
  readonly wholeBody?: boolean;
  /**
   * Scheme of the connection, when the host knows it. Without it the scheme is the Request URL's,
   * which Deno builds from what the client wrote for an absolute-form target (`GET https://…`) or an
   * h2c `:scheme`: over plain HTTP a client could make itself `isSecure()`.
   */
  readonly scheme?: 'http' | 'https';
  /**
   * For a host whose server enforces no request timeout (Deno.serve): the body read bounded in time.
   * The promise returned rejects once the read has taken too long (the kernel then answers the 400 of
   * a body cut off, as on Node), and the host answers 408 in its place, as Node's server does.
   */
  bodyDeadline?(read: Promise<Uint8Array | null>): Promise<Uint8Array | null>;
  /** The raw request target when the host kept it (the Fetch URL parser resolves `..` and `\`). */
  rawTarget?: string;
  /**
   * The server's own authority (`host:port`), for a request without a Host header when the host puts
   * none in the Request URL either (Bun builds `http:///path`); Symfony's SERVER_NAME fallback. Deno
   * and the Node adapter need not pass it: Deno's URL carries the listening address, and the Node
   * adapter reads the socket's.
   */
  fallbackHost?: string;
  protocol?: string;
}

/** Splits an absolute URL into scheme, authority and target without the URL parser's normalisation. */
export function splitUrl(url: string): { scheme: 'http' | 'https'; authority: string; target: string } {
  const sep = url.indexOf('://');
  const scheme = sep > 0 && url.slice(0, sep).toLowerCase() === 'https' ? 'https' : 'http';
  const rest = sep >= 0 ? url.slice(sep + 3) : url;
  let slash = rest.indexOf('/');
  const q = rest.indexOf('?');
  if (q >= 0 && (slash < 0 || q < slash)) slash = q;
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  let target = slash < 0 ? '/' : rest.slice(slash);
  const hash = target.indexOf('#');
  if (hash >= 0) target = target.slice(0, hash);
  if (target[0] === '?') target = '/' + target;
  return { scheme, authority, target };
}

/**
 * The target of a URL that a Fetch host built as scheme, `://`, the Host header and the origin-form
 * target (Deno does), when the Host holds a `/` or `?`: splitUrl ends the authority at the first of
 * them, so `Host: a.test/admin` moved its tail into the path (`GET /foo` was routed as `/admin/foo`
 * on Deno, where Node and Symfony, reading the request line, route `/foo`: a path a client chose,
 * whenever a trusted proxy's X-Forwarded-Host spares that Host its check), and `Host: a.test?x` made
 * `GET /foo` the path `/` with the query `x/foo`. Undefined when the Host holds neither (the common
 * case: the URL splits as it is) or the URL was not built from it (an absolute-form target's).
 */
function targetAfterHost(url: string, host: string | null): string | undefined {
  if (host === null || (!host.includes('/') && !host.includes('?'))) return undefined;
  const start = url.indexOf('://') + 3;
  if (start < 3 || !url.startsWith(host, start) || url[start + host.length] !== '/') return undefined;
  const target = url.slice(start + host.length);
  const hash = target.indexOf('#');
  return hash < 0 ? target : target.slice(0, hash);
}

/**
 * What `app.handle` takes, from a Fetch Request (`app.fetch` does this itself): headers and body are
 * read from the Request only when the kernel asks; `info` gives the peer address the Request lacks.
 */
export function fetchSource(request: Request, info?: ConnectionInfo | DenoServeInfo): RequestSource {
  return new FetchSource(request, connectionInfo(info));
}

/**
 * The ConnectionInfo in what a host passed beside the Request. `app.fetch` is handed to hosts as it
 * is (`export default { fetch: app.fetch }`), and each passes its own object there: Deno its handler
 * info, whose peer address is `remoteAddr.hostname` (read as denoConnectionInfo reads it); Bun its
 * `Server`, whose `protocol` ("http") became the request's protocol. A ConnectionInfo is an object
 * literal (or denoConnectionInfo's), so any other kind of object (a class instance such as Bun's
 * `Server`) is not one and is ignored.
 */
function connectionInfo(info: unknown): ConnectionInfo | undefined {
  if (typeof info !== 'object' || info === null) return undefined;
  if (info instanceof DenoConnection) return info;
  // Deno's ServeHandlerInfo (`remoteAddr` is a getter on its prototype; `in` does not call it).
  if ('remoteAddr' in info && !('remoteAddress' in info)) return denoConnectionInfo(info as DenoServeInfo);
  const prototype: unknown = Object.getPrototypeOf(info);
  return prototype === Object.prototype || prototype === null ? (info as ConnectionInfo) : undefined;
}

/** A RequestSource over a Fetch Request: one object per request, headers read through on demand. */
class FetchSource implements RequestSource {
  readonly method: string;
  readonly target: string;
  readonly scheme: 'http' | 'https';
  readonly fallbackHost: string;
  readonly protocol: string;
  private readonly request: Request;
  private fetchHeaders: Headers;
  private readonly info: ConnectionInfo | undefined;
  private peer: string | undefined;

  constructor(request: Request, info: ConnectionInfo | undefined) {
    const url = request.url;
    const { scheme, authority, target } = splitUrl(url);
    const headers = request.headers;
    this.request = request;
    this.fetchHeaders = headers;
    this.method = request.method;
    this.target = info?.rawTarget ?? targetAfterHost(url, headers.get('host')) ?? target;
    this.scheme = info?.scheme ?? scheme;
    this.fallbackHost = authority === '' && info?.fallbackHost ? info.fallbackHost : authority;
    this.info = info;
    this.protocol = info?.protocol ?? 'HTTP/1.1';
  }

  get remoteAddress(): string {
    return (this.peer ??= this.info?.remoteAddress ?? '');
  }

  header(name: string): string | null {
    return this.fetchHeaders.get(name);
  }
  headers(): Iterable<[string, string]> {
    return this.fetchHeaders;
  }
  body(): ReadableStream<Uint8Array> | null {
    return this.request.body;
  }
  /**
   * Cheaper than a header lookup through the Fetch `Headers` (undici validates every name it is asked
   * for). A Fetch GET or HEAD cannot carry a body. `request.body` is not asked: on Deno that getter
   * turns the body into a stream, and reading a stream costs more than reading the body whole.
   */
  hasNoBody(): boolean {
    return this.method === 'GET' || this.method === 'HEAD';
  }
  /**
   * A copy of the headers of its own (Deno's read through to a request it closes after an upgrade
   * response), and the peer address asked now (Deno's handler info no longer answers after the response).
   */
  retain(): void {
    this.fetchHeaders = new Headers(this.fetchHeaders);
    void this.remoteAddress;
  }

  /**
   * On a host that reads whole bodies natively (`ConnectionInfo.wholeBody`: Deno), a body that declares
   * a length up to WHOLE_BODY_MAX (and within the limit) is read in one call; the host's framing holds
   * it to that length, and a longer one still ends in null. Deno's `arrayBuffer()` allocates the
   * declared length before the first byte arrives, so a larger body read that way would cost its whole
   * declared size for each client that declares it and then sends nothing (500 such clients at the
   * default 1 MiB BODY_LIMIT: 500 MB); it goes through the stream, which grows with what arrives.
   * Otherwise too (undici's `arrayBuffer()` is slower than its stream), through the stream, stopping at
   * the limit. A host's `ConnectionInfo.bodyDeadline` bounds a read through the stream in time; the
   * small whole read is left without one: watching it cost a JSON echo on Deno a third of its rate
   * (bench/HISTORY.md, 2026-11-23), and a client that stalls such a body holds no more than one that stalls
   * its headers, which Deno.serve does not time out either (README, "Decisions").
   */
  readBody(limit: number): Promise<Uint8Array | null> {
    const info = this.info;
    if (info?.wholeBody === true) {
      const declared = this.fetchHeaders.get('content-length');
      if (declared !== null && declared.length <= 15 && isDigits(declared) && Number(declared) <= Math.min(limit, WHOLE_BODY_MAX)) {
        return this.request.arrayBuffer().then((buffer) => (buffer.byteLength > limit ? null : new Uint8Array(buffer)));
      }
    }
    const read = readStreamBounded(this.request.body, limit);
    return info?.bodyDeadline ? info.bodyDeadline(read) : read;
  }
}

/** The largest declared body read whole on a `wholeBody` host: a JSON API's or a form's bodies, not an upload's. */
const WHOLE_BODY_MAX = 64 * 1024;

/** A body stream read whole, or null (reading stopped, the stream cancelled) once it passes `limit` bytes. */
export async function readStreamBounded(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | null> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** What `Deno.serve` passes beside each request (only the part read here). */
export interface DenoServeInfo {
  /** A NetAddr's `hostname`; Deno's UnixAddr and VsockAddr have none (`transport` names which it is). */
  readonly remoteAddr?: { readonly hostname?: string; readonly transport?: string };
}

/**
 * ConnectionInfo over `Deno.serve`'s handler info: the peer address is asked of Deno only when
 * something reads it (an op call on every request otherwise, ≈ 0.7 µs), and bodies are read whole
 * (`wholeBody`: about 10 µs less per JSON POST than through the stream). For embedders:
 * `Deno.serve((request, info) => app.respond(request, denoConnectionInfo(info)))`. `options.scheme`
 * is the connection's scheme ('https' with `cert`/`key`; without it, the URL's, which a client can
 * choose: see ConnectionInfo.scheme); `options.bodyDeadlines` bounds body reads in time
 * (denoServeHandler passes both).
 */
export function denoConnectionInfo(info: DenoServeInfo | undefined, options?: DenoConnectionOptions): DenoConnectionInfo {
  return new DenoConnection(info, options?.scheme, options?.bodyDeadlines);
}

/** What denoConnectionInfo takes besides Deno's info. */
export interface DenoConnectionOptions {
  /** The connection's scheme (ConnectionInfo.scheme). */
  readonly scheme?: 'http' | 'https';
  /** `watch(read, onTimeout)`: `read`, or a rejection once it has taken too long, after calling `onTimeout`. */
  readonly bodyDeadlines?: { watch(read: Promise<Uint8Array | null>, onTimeout: () => void): Promise<Uint8Array | null> };
}

/** denoConnectionInfo's answer: a ConnectionInfo that also says whether its request's body read ran out of time. */
export interface DenoConnectionInfo extends ConnectionInfo {
  /** True once the body read outlasted its deadline: the host answers 408. */
  readonly timedOut: boolean;
  /**
   * Asks Deno for the peer address now and keeps it. Deno 2.9 closes every request once its response
   * is sent (not only an upgraded one): `info.remoteAddr` then throws `TypeError: Request closed`, so
   * whatever reads the client's address after the response (kernel.terminate) needs it kept before.
   */
  retain(): void;
}

class DenoConnection implements DenoConnectionInfo {
  readonly wholeBody = true;
  timedOut = false;
  private peer: string | undefined;
  constructor(
    private readonly info: DenoServeInfo | undefined,
    readonly scheme?: 'http' | 'https',
    private readonly deadlines?: DenoConnectionOptions['bodyDeadlines'],
  ) {}
  get remoteAddress(): string {
    return (this.peer ??= this.info?.remoteAddr?.hostname ?? '');
  }
  retain(): void {
    void this.remoteAddress;
  }
  bodyDeadline(read: Promise<Uint8Array | null>): Promise<Uint8Array | null> {
    return this.deadlines ? this.deadlines.watch(read, () => (this.timedOut = true)) : read;
  }
}

/** `/^\d+$/` without a regular expression (asked for on every URL a request builds). */
export function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
