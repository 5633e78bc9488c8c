import type { HttpResponse } from './response.ts';

/**
 * The Fetch `Response` that `app.fetch` hands back.
 *
 * Node's `Response` (undici) builds a ReadableStream for every body at construction: 7–9 µs on
 * Node 20, about three times what the whole kernel costs for a small route, and reading it back
 * with `text()` costs more again. Callers of `app.fetch` on Node are JavaScript (tests, JS-level
 * adapters), and most of them read the status, a few headers and the text. So on Node a response
 * with a string or byte body comes back as a deferred response, the same idea as
 * @hono/node-server's lightweight Response:
 * - it is an `instanceof Response`, with its status, headers and body as the kernel left them;
 * - `status`, `headers`, `text()`, `json()`, `arrayBuffer()` and `bytes()` are answered from the
 *   kernel's response, with undici's results (BOM and lone surrogates included, see `readText`);
 * - anything else (`body`, `blob()`, `formData()`, `clone()` of a read body…) builds the real
 *   undici Response once, from the same status, headers and body, and asks it.
 * `headers` is one `Headers` object for the response's life, also after the real one is built.
 *
 * Everywhere else — Deno, Bun, workerd, whose servers take only their own native `Response` — and
 * for streamed bodies, `app.fetch` returns a real Response (`HttpResponse.toFetch`).
 *
 * What Fetch refuses (a 1xx status, a 205 with a body, a body already read) throws here the error
 * `toFetch()` throws; `app.fetch` does not pass it on: it answers the Node adapter's plain 500 and logs
 * the error (app/create-app.ts), so every host answers such a response alike.
 */
export function toFetchResponse(response: HttpResponse): Response {
  const body = response.body;
  const status = response.status;
  if (!DEFERRED || globalThis.Response !== NativeResponse || !(status >= 200 && status <= 599 && Number.isInteger(status)) || status === 205 || !(body === null || typeof body === 'string' || body instanceof Uint8Array)) {
    return response.toFetch();
  }
  // Every line is one undici accepts: ResponseHeaders refuses other names and values where they are set.
  const lines = response.headers.lines();
  const empty = body === '' || response.isEmptyStatus();
  // Bytes are copied as undici copies them: what the caller gets cannot change under it later. Into a
  // plain Uint8Array of their own: a Node Buffer's `slice()` is a view, often of the shared 8 KB pool,
  // whose whole ArrayBuffer (other requests' bytes) `arrayBuffer()` would then hand out.
  const snapshot = empty || body === null ? null : typeof body === 'string' ? body : new Uint8Array(body);
  return new DeferredResponse(status, snapshot, lines) as unknown as Response;
}

const NativeResponse = globalThis.Response;

/**
 * Node (not Bun or Deno, which also set `process.versions.node`; not workerd, whose navigator says so),
 * with undici's own Response as the global. A host that has put its own lightweight class there
 * (@hono/node-server does by default) already avoids the stream and has a fast path for its class:
 * then, and whenever the global changes later, `app.fetch` builds the global `Response` (toFetch).
 */
const DEFERRED: boolean = (() => {
  const g = globalThis as { process?: { versions?: { node?: string; bun?: string } }; Deno?: unknown; navigator?: { userAgent?: unknown } };
  if (typeof NativeResponse !== 'function' || Object.getPrototypeOf(NativeResponse.prototype) !== Object.prototype) return false;
  if (!g.process?.versions?.node || g.process.versions.bun || g.Deno !== undefined) return false;
  const agent = g.navigator?.userAgent;
  return typeof agent !== 'string' || agent.startsWith('Node.js');
})();

/** undici's messages, so a test that matches them sees the same text either way. */
const BODY_USED = 'Body is unusable: Body has already been read';
const CLONE_USED = 'Response.clone: Body has already been consumed.';

let realOf: (response: DeferredResponse) => Response;

class DeferredResponse {
  readonly #status: number;
  readonly #body: string | Uint8Array | null;
  /** The kernel's header lines (name, value, …), copied when the response left the kernel: a later
   * `kernel.terminate` listener cannot change what the client was given. */
  readonly #lines: string[];
  #headers: Headers | null = null;
  #real: Response | null = null;
  #used = false;

  constructor(status: number, body: string | Uint8Array | null, lines: string[]) {
    this.#status = status;
    this.#body = body;
    this.#lines = lines;
  }

  get type(): ResponseType {
    return 'default';
  }
  get url(): string {
    return '';
  }
  get redirected(): boolean {
    return false;
  }
  get status(): number {
    return this.#status;
  }
  get ok(): boolean {
    return this.#status >= 200 && this.#status < 300;
  }
  get statusText(): string {
    return '';
  }
  get headers(): Headers {
    return (this.#headers ??= this.#buildHeaders());
  }
  get body(): ReadableStream<Uint8Array> | null {
    return this.#materialize().body;
  }
  get bodyUsed(): boolean {
    return this.#real ? this.#real.bodyUsed : this.#used;
  }

  text(): Promise<string> {
    if (this.#real) return this.#real.text();
    if (this.#used) return Promise.reject(new TypeError(BODY_USED));
    // A null body is never used up (Fetch's "body is null"): it reads as empty, again and again.
    if (this.#body !== null) this.#used = true;
    return Promise.resolve(readText(this.#body));
  }
  json(): Promise<unknown> {
    if (this.#real) return this.#real.json();
    // JSON.parse throws inside `then`: a malformed body rejects, as undici's json() does.
    return this.text().then(JSON.parse);
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#real) return this.#real.arrayBuffer();
    return this.#readBytes().then((bytes) => bytes.buffer as ArrayBuffer);
  }
  bytes(): Promise<Uint8Array> {
    if (this.#real) return (this.#real as Response & { bytes(): Promise<Uint8Array> }).bytes();
    return this.#readBytes();
  }
  clone(): Response {
    if (this.bodyUsed) throw new TypeError(CLONE_USED);
    if (this.#real) return new NativeResponse(this.#real.clone().body, { status: this.#status, headers: this.headers });
    let lines = this.#lines;
    if (this.#headers) {
      lines = [];
      this.#headers.forEach((value, name) => void lines.push(name, value));
    }
    return new DeferredResponse(this.#status, this.#body, lines) as unknown as Response;
  }

  #readBytes(): Promise<Uint8Array> {
    if (this.#used) return Promise.reject(new TypeError(BODY_USED));
    const body = this.#body;
    if (body !== null) this.#used = true;
    // Always a fresh copy: the caller may write to it, and the kernel's bytes stay the kernel's.
    return Promise.resolve(body === null ? new Uint8Array(0) : typeof body === 'string' ? encoder.encode(body) : body.slice());
  }

  /** What `toFetch()` gives: undici's default Content-Type for a string body, then the kernel's lines. */
  #buildHeaders(): Headers {
    const headers = new Headers();
    const lines = this.#lines;
    let typed = false;
    for (let i = 0; i < lines.length; i += 2) {
      const name = lines[i]!;
      if (name === 'set-cookie') headers.append(name, lines[i + 1]!);
      else headers.set(name, lines[i + 1]!);
      if (name === 'content-type') typed = true;
    }
    if (typeof this.#body === 'string' && !typed) headers.set('content-type', 'text/plain;charset=UTF-8');
    return headers;
  }

  static {
    realOf = (response) => response.#materialize();
  }

  /** The real undici Response, built once; a body already read through this object stays read. */
  #materialize(): Response {
    if (this.#real) return this.#real;
    const headers = this.headers;
    const real = new NativeResponse(this.#body as BodyInit | null, { status: this.#status, headers });
    this.#real = real;
    if (this.#used) {
      // Read and locked, as undici leaves a body after text().
      const reader = real.body?.getReader();
      reader?.read().catch(() => undefined);
    }
    return real;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * What undici's `text()` returns for this body: UTF-8 encoded, then decoded without a leading BOM.
 * A well-formed string without a BOM comes back unchanged, so only the others take the round trip.
 */
function readText(body: string | Uint8Array | null): string {
  if (body === null) return '';
  if (typeof body !== 'string') return decoder.decode(body);
  if (body.charCodeAt(0) !== 0xfeff && (body as string & { isWellFormed(): boolean }).isWellFormed()) return body;
  return decoder.decode(encoder.encode(body));
}

// `instanceof Response` holds; every member of Response.prototype this class does not answer itself
// (blob, formData, and whatever a later undici adds) is asked of the real Response.
if (DEFERRED) {
  Object.setPrototypeOf(DeferredResponse.prototype, NativeResponse.prototype);
  for (const key of Object.getOwnPropertyNames(NativeResponse.prototype)) {
    if (key === 'constructor' || Object.prototype.hasOwnProperty.call(DeferredResponse.prototype, key)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(NativeResponse.prototype, key)!;
    if (typeof descriptor.value === 'function') {
      const method = descriptor.value as (...args: unknown[]) => unknown;
      Object.defineProperty(DeferredResponse.prototype, key, {
        ...descriptor,
        value(this: DeferredResponse, ...args: unknown[]) {
          return method.apply(realOf(this), args);
        },
      });
    } else if (descriptor.get) {
      const get = descriptor.get;
      Object.defineProperty(DeferredResponse.prototype, key, { ...descriptor, get(this: DeferredResponse) {
        return get.call(realOf(this));
      } });
    }
  }
}
