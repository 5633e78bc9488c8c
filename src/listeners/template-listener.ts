import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import type { ControllerEvent, ViewEvent } from '../kernel/events.ts';
import { isThenable, listener, idleWhen, routeLacks } from '../kernel/hooks.ts';
import { controllerName } from './router-listener.ts';
import { convertedRouteParams } from './param-converter-listener.ts';

export type TemplateOutput = string | Uint8Array | ReadableStream<Uint8Array>;

/**
 * Renders a named template with the data a controller returned. Configure with
 * `createApp({ renderTemplate })`. It must escape what it interpolates (e.g. with `he.escape`).
 */
export type TemplateRenderer = (name: string, data: Record<string, unknown>, request: KernelRequest) => TemplateOutput | Promise<TemplateOutput>;

/** An inline template: the route's own render function. */
export type TemplateFunction = (data: Record<string, unknown>, request: KernelRequest) => TemplateOutput | Promise<TemplateOutput>;

/**
 * The `template` route option (Sensio's @Template): a template name for the app's renderer, `true` to
 * use the route name as the template name, an inline render function, or an object with a status.
 */
export type TemplateOption = string | true | TemplateFunction | { name?: string; render?: TemplateFunction; status?: number };

/** The `_template` attribute once TemplateListener::onKernelController resolved it. */
export interface ResolvedTemplate {
  readonly name: string;
  readonly render: TemplateFunction | null;
  readonly status: number;
  /** The controller whose data the template renders. */
  readonly controller: string;
}

/**
 * SensioFrameworkExtraBundle's TemplateListener.
 * - onKernelController (last controller listener): resolves the `template` option — guesses the
 *   template name (the route name) when none is given and records the controller — into `_template`.
 * - onKernelView: when the controller returned a plain object (or nothing: the route parameters are
 *   used), renders it with the template into an HTML response (`text/html; charset=UTF-8`; a stream
 *   output becomes a streamed response). Other results are left for the kernel's "must return a
 *   response" error.
 */
export class TemplateListener {
  constructor(private readonly renderer: TemplateRenderer | null) {}

  readonly onKernelController = idleWhen(
    listener<'kernel.controller'>('TemplateListener::onKernelController', 'template handling', (event: ControllerEvent) => {
      const request = event.request;
      const option = request.attributes.get('_template') as TemplateOption | ResolvedTemplate | undefined;
      if (option === undefined || option === null || isResolved(option)) return;
      const route = request.attributes.get('_route');
      const guessed = typeof route === 'string' ? route : 'template';
      let name = guessed;
      let render: TemplateFunction | null = null;
      let status = 200;
      // Sensio's TemplateListener::onKernelController guesses the name when `getTemplate()` is empty ('' too).
      if (typeof option === 'string') name = option === '' ? guessed : option;
      else if (typeof option === 'function') render = option;
      else if (typeof option === 'object') {
        if (typeof option.name === 'string' && option.name !== '') name = option.name;
        if (typeof option.render === 'function') render = option.render;
        if (typeof option.status === 'number') status = option.status;
      }
      if (render === null && this.renderer === null) {
        throw new Error(`Route "${guessed}" has a template option but the app has no template renderer: pass createApp({ renderTemplate }) or a render function in the option.`);
      }
      request.attributes.set('_template', { name, render, status, controller: controllerName(event.controller) } satisfies ResolvedTemplate);
    }),
    routeLacks('template', '_template'),
  );

  readonly onKernelView = listener<'kernel.view'>('TemplateListener::onKernelView', 'template rendering', (event: ViewEvent) => {
    const request = event.request;
    const template = request.attributes.get('_template');
    if (!isResolved(template)) return;
    const result = event.controllerResult;
    let data: Record<string, unknown>;
    if (result === null || result === undefined) data = convertedRouteParams(request);
    else if (isPlainObject(result)) data = result as Record<string, unknown>;
    else return;
    const output = template.render ? template.render(data, request) : this.renderer!(template.name, data, request);
    if (isThenable(output)) return Promise.resolve(output).then((body) => event.setResponse(toResponse(body, template.status)));
    event.setResponse(toResponse(output, template.status));
  });
}

function isResolved(value: unknown): value is ResolvedTemplate {
  return value !== null && typeof value === 'object' && typeof (value as ResolvedTemplate).controller === 'string' && typeof (value as ResolvedTemplate).status === 'number' && 'render' in value;
}

function isPlainObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function toResponse(body: TemplateOutput, status: number): HttpResponse {
  const response = new HttpResponse(templateBody(body), status);
  response.headers.set('content-type', 'text/html; charset=UTF-8');
  return response;
}

/**
 * What a template returned, as a response body. Symfony's Response::setContent takes a string or a
 * scalar and throws UnexpectedValueException for anything else: an object (a render function that
 * returned an HttpResponse or a Fetch Response) went out as a 200 `[object Object]` page.
 */
function templateBody(body: unknown): string | Uint8Array | ReadableStream<Uint8Array> {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body === null || body === undefined) return '';
  // PHP's string of a scalar: true is "1", false "".
  if (typeof body === 'boolean') return body ? '1' : '';
  if (typeof body === 'number' || typeof body === 'bigint') return String(body);
  if (typeof body === 'object' && typeof (body as ReadableStream).getReader === 'function') return body as ReadableStream<Uint8Array>;
  const kind = typeof body === 'object' ? (Object.getPrototypeOf(body)?.constructor?.name ?? 'object') : typeof body;
  throw new TypeError(`A template must return a string or a ReadableStream, got ${kind === 'Object' ? 'an object' : kind}.`);
}
