/**
 * A small JSON notes service, written as one would write it with Hono or Fastify, on irms-web.
 * README.md beside this file says what each route answers and how to run it.
 */
import {
  BadRequestHttpException,
  ConflictHttpException,
  createApp,
  getMember,
  HttpException,
  HttpResponse,
  UnsupportedMediaTypeHttpException,
  type App,
  type AppOptions,
  type KernelRequest,
  type RouteDefinition,
} from '../../src/index.ts';

export interface Note {
  id: number;
  /** Bumped on every write: the note's ETag. */
  version: number;
  title: string;
  body: string;
  updatedAt: string;
}

/** An in-memory repository; one per app, so tests do not share notes. */
export class NoteStore {
  private readonly notes = new Map<number, Note>();
  private nextId = 1;

  list(offset: number, limit: number): Note[] {
    return [...this.notes.values()].slice(offset, offset + limit);
  }
  get size(): number {
    return this.notes.size;
  }
  find(id: number): Note | undefined {
    return this.notes.get(id);
  }
  findByTitle(title: string): Note | undefined {
    for (const note of this.notes.values()) if (note.title === title) return note;
    return undefined;
  }
  save(fields: { title: string; body: string }, id = this.nextId++): Note {
    const note = { id, version: (this.notes.get(id)?.version ?? 0) + 1, title: fields.title, body: fields.body, updatedAt: new Date().toISOString() };
    this.notes.set(id, note);
    return note;
  }
  delete(id: number): boolean {
    return this.notes.delete(id);
  }
}

/** The bearer tokens this service accepts (a real one would look them up). */
const TOKENS: Record<string, { memberId: string; roles: string[] }> = {
  'notes-writer-token': { memberId: 'writer', roles: ['ROLE_WRITER'] },
};

const MAX_LIMIT = 100;
/**
 * Notes the in-memory store holds: past it a new note is a 507 Insufficient Storage (a database's full
 * disk), so a client that posts in a loop cannot grow the process's memory without bound. Each note is
 * at most the 64 KiB body limit.
 */
export const MAX_NOTES = 1000;
const CORS_ORIGINS = new Set(['https://notes.example']);
const CORS_METHODS = 'GET, POST, PUT, PATCH, DELETE';

type Violation = { propertyPath: string; title: string };

/** 422 in the README's problem+json shape. */
function validationFailed(violations: Violation[]): HttpResponse {
  return HttpResponse.json(
    { type: 'https://example.com/problems/validation', title: 'Validation Failed', status: 422, detail: violations.map((v) => `${v.propertyPath}: ${v.title}`).join('\n'), violations },
    422,
    { 'content-type': 'application/problem+json' },
  );
}

/** A JSON body or a 415: the JSON body listener has already parsed it into `request.request`. */
function jsonBody(request: KernelRequest): Record<string, unknown> {
  if (request.getContentTypeFormat() !== 'json') throw new UnsupportedMediaTypeHttpException('Send the note as application/json.');
  return request.request.all();
}

/** Validates `fields`; `partial` (PATCH) lets fields be absent. */
function validate(fields: Record<string, unknown>, partial: boolean): Violation[] {
  const violations: Violation[] = [];
  for (const name of ['title', 'body']) {
    const value = fields[name];
    if (value === undefined && partial) continue;
    if (typeof value !== 'string' || (name === 'title' && value.trim() === '')) violations.push({ propertyPath: name, title: 'This value should be a non-empty string.' });
  }
  if (typeof fields.title === 'string' && fields.title.length > 200) violations.push({ propertyPath: 'title', title: 'This value is too long.' });
  return violations;
}

/** A query parameter as a positive integer, or a 400. */
function positiveInt(request: KernelRequest, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = request.query.get(name);
  if (raw === undefined || raw === null) return fallback;
  // Digits only (no sign, exponent or leading zero), then the bound the message names.
  if (typeof raw !== 'string' || !/^[1-9]\d*$/.test(raw) || Number(raw) > max) {
    throw new BadRequestHttpException(`Query parameter "${name}" must be an integer between 1 and ${max}.`);
  }
  return Number(raw);
}

/** The `id` attribute, once the `converters` option has replaced it by its note (a missing note is a 404). */
const noteOf = (request: KernelRequest): Note => request.attributes.get('id') as Note;

function routes(store: NoteStore, eventIntervalMs: number): RouteDefinition[] {
  const id = { id: '\\d+' };
  // Sensio's @ParamConverter: `null` is a 404 before the controller (and the ETag below) runs.
  const converters = { id: (value: unknown) => store.find(Number(value)) ?? null };
  const writer = { requiresLogin: true };
  return [
    { name: 'health', path: '/health', methods: ['GET', 'HEAD'], controller: () => HttpResponse.json({ status: 'ok' }) },
    {
      name: 'note_list',
      path: '/notes',
      methods: ['GET', 'HEAD'],
      controller: function listNotes(request) {
        const page = positiveInt(request, 'page', 1);
        const limit = positiveInt(request, 'limit', 10, MAX_LIMIT);
        return HttpResponse.json({ page, limit, total: store.size, items: store.list((page - 1) * limit, limit) });
      },
    },
    {
      name: 'note_create',
      path: '/notes',
      methods: ['POST'],
      options: writer,
      controller: function createNote(request) {
        const fields = jsonBody(request);
        const violations = validate(fields, false);
        if (violations.length > 0) return validationFailed(violations);
        if (store.findByTitle(fields.title as string)) throw new ConflictHttpException('A note with this title exists.');
        if (store.size >= MAX_NOTES) throw new HttpException(507, `The store holds ${MAX_NOTES} notes: delete some first.`);
        const note = store.save({ title: fields.title as string, body: fields.body as string });
        request.logger.info('app', 'Note {id} created by {member}.', { id: note.id, member: getMember(request)?.memberId });
        return HttpResponse.json(note, 201, { location: request.generateUrl('note_show', { id: note.id }) });
      },
    },
    {
      name: 'note_show',
      path: '/notes/:id',
      methods: ['GET', 'HEAD'],
      requirements: id,
      // Sensio's @Cache: a matching If-None-Match is a 304 before the controller runs.
      options: { converters, cache: { etag: (request) => `note-${noteOf(request).id}-v${noteOf(request).version}`, maxAge: 0, mustRevalidate: true } },
      controller: function showNote(request) {
        return HttpResponse.json(noteOf(request));
      },
    },
    {
      name: 'note_update',
      path: '/notes/:id',
      methods: ['PUT', 'PATCH'],
      requirements: id,
      options: { ...writer, converters },
      controller: function updateNote(request) {
        const note = noteOf(request);
        const fields = jsonBody(request);
        const violations = validate(fields, request.isMethod('PATCH'));
        if (violations.length > 0) return validationFailed(violations);
        const title = (fields.title as string | undefined) ?? note.title;
        const other = store.findByTitle(title);
        if (other && other.id !== note.id) throw new ConflictHttpException('A note with this title exists.');
        return HttpResponse.json(store.save({ title, body: (fields.body as string | undefined) ?? note.body }, note.id));
      },
    },
    {
      name: 'note_delete',
      path: '/notes/:id',
      methods: ['DELETE'],
      requirements: id,
      options: { ...writer, converters },
      controller: function deleteNote(request) {
        store.delete(noteOf(request).id);
        return new HttpResponse('', 204);
      },
    },
    {
      name: 'note_download',
      path: '/notes/:id/download',
      methods: ['GET'],
      requirements: id,
      options: { converters },
      controller: function downloadNote(request) {
        const note = noteOf(request);
        return HttpResponse.text(`${note.title}\n\n${note.body}\n`, 200, { 'content-disposition': `attachment; filename="note-${note.id}.txt"` });
      },
    },
    {
      name: 'note_events',
      path: '/events',
      methods: ['GET'],
      controller: function noteEvents(request) {
        return HttpResponse.stream(eventStream(request, store, eventIntervalMs), 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      },
    },
  ];
}

/**
 * Server-Sent Events: the note count now and every `intervalMs`. `cancel` runs when the client goes
 * away (the adapter cancels the stream), which stops the timer.
 */
function eventStream(request: KernelRequest, store: NoteStore, intervalMs: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = () => controller.enqueue(encoder.encode(`id: ${++sent}\nevent: count\ndata: ${JSON.stringify({ total: store.size })}\n\n`));
      send();
      timer = setInterval(send, intervalMs);
    },
    cancel() {
      clearInterval(timer);
      request.logger.info('app', 'Event stream closed by the client after {sent} events.', { sent });
    },
  });
}

/** NelmioCorsBundle's CorsListener: preflights answered before routing, headers added to every answer. */
const corsListeners: NonNullable<AppOptions['listeners']> = [
  {
    hook: 'kernel.request',
    placement: { priority: 250 },
    listener: {
      id: 'App\\EventListener\\CorsListener::onKernelRequest',
      role: 'CORS preflight',
      call(event) {
        const { request } = event;
        if (request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method')) return;
        const origin = request.headers.get('origin');
        const headers: Record<string, string> = { vary: 'Origin' };
        if (origin !== null && CORS_ORIGINS.has(origin)) {
          Object.assign(headers, {
            'access-control-allow-origin': origin,
            'access-control-allow-methods': CORS_METHODS,
            'access-control-allow-headers': 'authorization, content-type',
            'access-control-max-age': '600',
          });
        }
        event.setResponse(new HttpResponse('', 204, headers));
      },
    },
  },
  {
    hook: 'kernel.response',
    listener: {
      id: 'App\\EventListener\\CorsListener::onKernelResponse',
      role: 'CORS headers',
      call(event) {
        const origin = event.request.headers.get('origin');
        if (origin === null || !CORS_ORIGINS.has(origin)) return;
        event.response.headers.set('access-control-allow-origin', origin);
        event.response.headers.set('access-control-expose-headers', 'location, etag');
        if (!/\borigin\b/i.test(event.response.headers.get('vary') ?? '')) event.response.headers.append('vary', 'Origin');
      },
    },
  },
];

/** The notes service. `options` are createApp's (debug, bodyLimit, logSink, …); `eventIntervalMs` paces /events. */
export function createNotesApp(options: AppOptions = {}, { eventIntervalMs = 15_000 } = {}): App & { store: NoteStore } {
  const store = new NoteStore();
  const app = createApp({
    bodyLimit: 64 * 1024,
    firewalls: [{ name: 'dev', pattern: /^\/_(profiler|wdt)\//, security: false }, { name: 'api', stateless: true }],
    verifyBearerToken: (token) => (Object.hasOwn(TOKENS, token) ? TOKENS[token]! : null),
    ...options,
    routes: routes(store, eventIntervalMs),
    listeners: [...corsListeners, ...(options.listeners ?? [])],
  });
  return Object.assign(app, { store });
}
