import type { KernelRequest } from '../http/request.ts';
import type { ControllerEvent, ResponseEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';
import { maskSecrets } from '../security/mask.ts';
import { StoredSession } from '../session/session.ts';
import { controllerName } from './router-listener.ts';

/** `request.collected.router` (RouterDataCollector). */
export interface RouterCollected {
  route: string;
  routeParams: Record<string, unknown>;
  controller: string;
}

/**
 * `request.collected.request` (RequestDataCollector). The session and redirect are added at kernel.response;
 * the response's status and headers are not: the profile reads the response the client got, at
 * kernel.terminate, so a copy made here was work on every debug request that nothing read.
 */
export interface RequestCollected {
  controller: string;
  route: string;
  routeParams: Record<string, unknown>;
  method: string;
  pathInfo: string;
  locale: string;
  /** Session data (secrets masked) when the request had a loaded session; null otherwise. */
  sessionAttributes?: Record<string, unknown> | null;
  redirect?: { status: number; location: string };
}

function routeOf(request: KernelRequest): string {
  const route = request.attributes.get('_route');
  return typeof route === 'string' ? route : '';
}

function routeParamsOf(request: KernelRequest): Record<string, unknown> {
  const params = request.attributes.get('_route_params');
  return params && typeof params === 'object' ? maskSecrets(params as Record<string, unknown>) : {};
}

/** Symfony's RouterDataCollector (debug only): remembers the route and controller for the profile. */
export class RouterDataCollector {
  readonly onKernelController = listener<'kernel.controller'>('RouterDataCollector::onKernelController', 'router data collection', (event: ControllerEvent) => {
    const request = event.request;
    request.collected.router = {
      route: routeOf(request),
      routeParams: routeParamsOf(request),
      controller: controllerName(event.controller),
    } satisfies RouterCollected;
  });
}

/**
 * Symfony's RequestDataCollector (debug only): at kernel.controller, the controller, route, method,
 * path and locale; at kernel.response, the session's attributes (masked; read without counting as a
 * session use) and the redirect target.
 */
export class RequestDataCollector {
  readonly onKernelController = listener<'kernel.controller'>('RequestDataCollector::onKernelController', 'request data collection', (event: ControllerEvent) => {
    const request = event.request;
    request.collected.request = {
      controller: controllerName(event.controller),
      route: routeOf(request),
      routeParams: routeParamsOf(request),
      method: request.method,
      pathInfo: request.pathInfo,
      locale: request.locale,
    } satisfies RequestCollected;
  });

  readonly onKernelResponse = listener<'kernel.response'>('RequestDataCollector::onKernelResponse', 'request data collection', (event: ResponseEvent) => {
    const request = event.request;
    const response = event.response;
    let data = request.collected.request as RequestCollected | undefined;
    if (data === undefined) {
      data = {
        controller: controllerName(request.attributes.get('_controller')),
        route: routeOf(request),
        routeParams: routeParamsOf(request),
        method: safeMethod(request),
        pathInfo: request.pathInfo,
        locale: request.locale,
      };
      request.collected.request = data;
    }
    const session = request.sessionIfCreated;
    const attributes = session instanceof StoredSession ? session.peek() : null;
    data.sessionAttributes = attributes === null ? null : maskSecrets(attributes);
    if (response.isRedirect()) data.redirect = { status: response.status, location: response.headers.get('location') ?? '' };
  });
}

/** The effective method, or the sent one when an override was invalid (the 400 being rendered). */
function safeMethod(request: KernelRequest): string {
  try {
    return request.method;
  } catch {
    return request.realMethod;
  }
}
