import type { AppServices } from '../../app/services.ts';
import type { KernelRequest } from '../../http/request.ts';
import type { HttpResponse } from '../../http/response.ts';
import type { ExceptionEvent, ResponseEvent, TerminateEvent } from '../../kernel/events.ts';
import { toError } from '../../kernel/exceptions.ts';
import { listener } from '../../kernel/hooks.ts';
import { collectProfile, type Recording } from './collect.ts';
import { isToken } from './profile.ts';
import { now } from '../../kernel/clock.ts';

type UrlGenerator = Pick<AppServices['router'], 'generate'>;

/** Two tokens to generate a route's URL with: where they differ is where any token goes. */
const PROBE_A = 'a0b1c2';
const PROBE_B = 'f9e8d7';
/** Per router: route name → the URL around its `token` parameter, or null when it is not that simple. */
const tokenTemplates = new WeakMap<object, Map<string, readonly [string, string] | null>>();

function tokenTemplate(router: UrlGenerator, name: string): readonly [string, string] | null {
  let perRouter = tokenTemplates.get(router);
  if (perRouter === undefined) tokenTemplates.set(router, (perRouter = new Map()));
  let template = perRouter.get(name);
  if (template === undefined) {
    template = null;
    try {
      const a = router.generate(name, { token: PROBE_A });
      const b = router.generate(name, { token: PROBE_B });
      const at = a.indexOf(PROBE_A);
      if (at >= 0 && a.indexOf(PROBE_A, at + 1) < 0 && b === a.slice(0, at) + PROBE_B + a.slice(at + PROBE_A.length)) {
        template = [a.slice(0, at), a.slice(at + PROBE_A.length)];
      }
    } catch {
      template = null;
    }
    perRouter.set(name, template);
  }
  return template;
}

/**
 * `router.generate(name, { token }, { absoluteBase })` for a route whose only parameter is a profiler
 * token, without running the generator on every request: the URL is generated once per router and
 * route, and a token (six hex characters, the same in any URL part) put in its place.
 */
export function tokenUrl(router: UrlGenerator, name: string, token: string, absoluteBase = ''): string {
  const template = isToken(token) ? tokenTemplate(router, name) : null;
  if (template === null) return router.generate(name, { token }, { absoluteBase });
  const path = template[0] + token + template[1];
  if (absoluteBase === '') return path;
  return (absoluteBase.charCodeAt(absoluteBase.length - 1) === 0x2f ? absoluteBase.replace(/\/+$/, '') : absoluteBase) + path;
}

/**
 * The absolute URL of a profile, built from the `_profiler` route and the request's scheme and host
 * (path only when the host is unusable, as Symfony's UrlGenerator does with an empty host).
 */
export function profileLink(services: AppServices, request: KernelRequest, token: string): string {
  let base = '';
  try {
    if (request.getHost()) base = request.getSchemeAndHttpHost();
  } catch {
    base = '';
  }
  try {
    return tokenUrl(services.router, '_profiler', token, base);
  } catch {
    return `${base}/_profiler/${token}`;
  }
}

/**
 * Symfony's ProfilerListener: remembers the request's error, records the profile on the response
 * (token headers) and stores it in kernel.terminate, after the client has the response.
 *
 * The response path only reserves a token and sets two headers; collecting, masking, serializing
 * and writing all happen in kernel.terminate.
 */
export class ProfilerListener {
  private readonly errors = new WeakMap<object, Error>();
  private readonly recordings = new WeakMap<object, Recording>();
  constructor(private readonly services: AppServices) {}

  readonly onKernelException = listener<'kernel.exception'>('ProfilerListener::onKernelException', 'profiler error capture', (event: ExceptionEvent) => {
    this.errors.set(event.request, event.throwable);
  });

  readonly onKernelResponse = listener<'kernel.response'>('ProfilerListener::onKernelResponse', 'profile recording', (event: ResponseEvent) => {
    const profiler = this.services.profiler;
    const request = event.request;
    if (!profiler || !profiler.shouldProfile(request)) return;
    // kernel.terminate reads the headers again, after the host may have closed its request.
    request.source.retain?.();
    const existing = this.recordings.get(request);
    if (existing) {
      // kernel.response ran again for this request (a response listener failed): same profile.
      this.tag(request, event.response, existing);
      return;
    }
    const durationMs = now() - request.startTime;
    const time = Date.now();
    let reserved: string | Promise<string>;
    try {
      reserved = profiler.store.reserveToken();
    } catch (error) {
      this.reportFailure(request, 'reserve a token', error);
      return;
    }
    const previousToken = event.response.headers.get('x-debug-token');
    const record = (token: string) => {
      const recording: Recording = { token, durationMs, time, previousToken };
      this.recordings.set(request, recording);
      this.tag(request, event.response, recording);
    };
    if (typeof reserved === 'string') return record(reserved);
    return reserved.then(record, (error: unknown) => this.reportFailure(request, 'reserve a token', error));
  });

  readonly onKernelTerminate = listener<'kernel.terminate'>('ProfilerListener::onKernelTerminate', 'profile storage', (event: TerminateEvent) => {
    const profiler = this.services.profiler;
    const request = event.request;
    const recording = this.recordings.get(request);
    if (!profiler || !recording) return;
    this.recordings.delete(request);
    const failed = (error: unknown) => this.reportFailure(request, `store profile ${recording.token}`, error);
    try {
      // Collected synchronously unless the request body has to be read; one promise for the write.
      const profile = collectProfile(this.services, request, event.response, recording, this.errors.get(request) ?? null);
      if (profile instanceof Promise) return profile.then((p) => profiler.store.write(p)).then(undefined, failed);
      return profiler.store.write(profile).then(undefined, failed);
    } catch (error) {
      failed(error);
    }
  });

  private tag(request: KernelRequest, response: HttpResponse, recording: Recording): void {
    if (recording.previousToken && recording.previousToken !== recording.token) response.headers.set('x-previous-debug-token', recording.previousToken);
    response.headers.set('x-debug-token', recording.token);
    response.headers.set('x-debug-token-link', profileLink(this.services, request, recording.token));
  }

  private reportFailure(request: KernelRequest, what: string, error: unknown): void {
    try {
      request.logger.error('profiler', `The profiler could not ${what}: {message}`, { message: toError(error).message, exception: toError(error) });
    } catch {
      // the profiler must never break a request
    }
  }
}
