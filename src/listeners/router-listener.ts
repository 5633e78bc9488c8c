import { normalizeQueryString, type KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import { encodeLocationChar, headerText, UNSAFE_LOCATION_CHAR } from '../http/url-encode.ts';
import type { ExceptionEvent, FinishRequestEvent, RequestEvent } from '../kernel/events.ts';
import {
  BadRequestHttpException,
  MethodNotAllowedException,
  MethodNotAllowedHttpException,
  NoConfigurationException,
  NotFoundHttpException,
  RequestError,
  type HttpException,
} from '../kernel/exceptions.ts';
import { listener } from '../kernel/hooks.ts';
import { captureStack } from '../debug/stack.ts';
import { maskQuerySecrets } from '../debug/profiler/mask.ts';
import { routingException, type CompiledRoute, type Router, type RoutingFailure } from '../routing/router.ts';

/** Name shown for a controller in logs and the profiler. */
export function controllerName(controller: unknown): string {
  if (typeof controller !== 'function') return 'n/a';
  return controller.name || 'anonymous controller';
}

/**
 * The match as Symfony's compiled matcher returns it, in its key order: `['_route' => $name] + $defaults`
 * (the route's defaults, then `_controller`, which the loaders add last), then the path variables that
 * have no default (CompiledUrlMatcherTrait::doMatch, `$ret[$v] = $matches[…]`). A trailing-slash
 * redirect puts RedirectableUrlMatcher's keys first (`redirect() + $ret`). This order is the request
 * attributes' (`attributes->add($parameters)`) and the `Matched route` log's `route_parameters`.
 */
function matchParameters(route: CompiledRoute, params: Record<string, unknown>, controller: unknown, redirect: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (redirect !== null) {
    out._controller = controller;
    for (const key of Object.keys(redirect)) out[key] = redirect[key];
  }
  out._route = route.name;
  // A `_controller` default (a migrated Symfony route's) names the controller in Symfony; here the route's
  // `controller` is that controller, so it takes the default's place instead of being replaced by a string.
  for (const key of Object.keys(route.defaults)) if (!Object.hasOwn(out, key)) out[key] = key === '_controller' ? controller : params[key];
  if (!Object.hasOwn(out, '_controller')) out._controller = controller;
  for (const key of Object.keys(params)) if (!Object.hasOwn(out, key)) out[key] = params[key];
  return out;
}

/** The log's `route_parameters`: the match, `_controller` named (controllerName). */
function routeParameters(match: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(match)) out[key] = key === '_controller' ? controllerName(match[key]) : match[key];
  return out;
}

/**
 * A redirect's `_route_params`: RouterListener sets the whole match minus `_route` and `_controller`, and
 * RedirectableCompiledUrlMatcher's match is `redirect() + $ret` — the redirect's keys, then the route's.
 */
function redirectRouteParams(redirect: Record<string, unknown>, params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...redirect };
  for (const key of Object.keys(params)) if (!Object.hasOwn(out, key) && key !== '_route' && key !== '_controller') out[key] = params[key];
  return out;
}

/**
 * RouterListener's `_route_params`: the match after `unset($parameters['_route'], $parameters['_controller'])`,
 * so a route default or path variable of either name stays out of it (copied only then).
 */
function withoutRouteKeys(params: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(params, '_route') && !Object.hasOwn(params, '_controller')) return params;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(params)) if (key !== '_route' && key !== '_controller') out[key] = params[key];
  return out;
}

/**
 * Route options that stand for annotations on the route's controller (Sensio's @Cache, @Template,
 * @ParamConverter, @Security, @IsGranted, and the login requirement): a trailing-slash redirect runs
 * RedirectController::urlRedirectAction, which carries none, so Symfony answers its 301 without them
 * (no 401 or 403 before the redirect, no cache headers on it). `stateless` stays: in Symfony it is the
 * route default `_stateless`, which the redirect's parameters keep; so do the application's own options.
 */
const CONTROLLER_OPTIONS: ReadonlySet<string> = new Set(['requiresLogin', 'cache', 'template', 'converters', 'security', 'isGranted']);

function redirectRouteOptions(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(options)) if (!CONTROLLER_OPTIONS.has(key)) out[key] = options[key];
  return out;
}

/**
 * Symfony's RouterListener: matches the request, fills the route attributes and logs the match; a miss
 * becomes a NotFoundHttpException / MethodNotAllowedHttpException with Symfony's exact messages.
 */
export class RouterListener {
  /**
   * @param captureStacks whether routing failures record a stack trace. Capturing one costs more than
   * the rest of a 404; it is skipped only when nothing will read it (production, 404/405 not logged).
   */
  constructor(
    private readonly router: Router,
    private readonly renderWelcomePage: ((request: KernelRequest) => HttpResponse) | null,
    private readonly captureStacks = true,
  ) {}

  readonly onKernelRequest = listener<'kernel.request'>('RouterListener::onKernelRequest', 'routing', (event: RequestEvent) => {
    const request = event.request;
    const method = routingContextMethod(request);
    if (request.attributes.has('_controller')) return;

    const match = this.router.lookup(request.pathInfo, method);
    if ('failure' in match) {
      event.fail(this.routingFailure(request, method, match));
      return;
    }

    const { route, params } = match;
    const redirect = match.redirectPath !== undefined ? redirectParameters(request, match.redirectPath) : null;
    const controller = redirect !== null ? urlRedirectAction : route.definition.controller;
    const attributes = request.attributes;
    const matched = matchParameters(route, params, controller, redirect);
    for (const key of Object.keys(matched)) attributes.set(key, matched[key]);
    attributes.set('_route_params', redirect !== null ? redirectRouteParams(redirect, params) : withoutRouteKeys(params));
    attributes.set('_route_options', redirect !== null ? redirectRouteOptions(route.options) : (route.definition.options ?? {}));

    if (request.logs('info')) {
      request.logger.info('request', 'Matched route "{route}".', {
        route: route.name,
        route_parameters: routeParameters(matched),
        // Secret query parameters masked as the profiler stores the URL (`?password=***&q=1&token=***`).
        request_uri: maskQuerySecrets(request.getUri()),
        method,
      });
    }
  });

  /** The HTTP exception for a failed match, its routing exception as `previous` (Symfony's messages). */
  private routingFailure(request: KernelRequest, method: string, failure: RoutingFailure): HttpException {
    const stackLimit = Error.stackTraceLimit;
    const stacks = this.captureStacks && stackLimit > 0;
    // Both exceptions are built without a stack; when stacks are wanted, withFrames captures this
    // call's frames once for both (they are thrown one line apart).
    Error.stackTraceLimit = 0;
    try {
      const previous = routingException(failure);
      const uri = request.getUriForPath(request.pathInfo);
      if (previous instanceof MethodNotAllowedException) {
        const allow = previous.allowedMethods.join(', ');
        const message = `No route found for "${method} ${uri}": Method Not Allowed (Allow: ${allow})`;
        return withFrames(stacks, stackLimit, new MethodNotAllowedHttpException(previous.allowedMethods, message, previous), previous);
      }
      // Symfony appends the Referer as sent; its secret query parameters (?token=…) are masked, since the
      // message is logged and shown. The host hands its bytes over as Latin-1: decoded like the Host, so
      // a UTF-8 `é` shows as `é`, not `Ã©`.
      const referer = request.headers.get('referer');
      // `if ($referer = $request->headers->get('referer'))`: PHP's truth test, under which "0" is false too.
      const quoted = referer !== null && referer !== '' && referer !== '0';
      const message = `No route found for "${method} ${uri}"${quoted ? ` (from "${maskQuerySecrets(headerText(referer))}")` : ''}`;
      return withFrames(stacks, stackLimit, new NotFoundHttpException(message, previous), previous);
    } finally {
      Error.stackTraceLimit = stackLimit;
    }
  }

  /** Debug only: `/` with nothing configured shows the welcome page (status 404) instead of the error page. */
  readonly onKernelException = listener<'kernel.exception'>('RouterListener::onKernelException', 'welcome page', (event: ExceptionEvent) => {
    const error = event.throwable;
    if (!this.renderWelcomePage || !(error instanceof NotFoundHttpException) || !(error.previous instanceof NoConfigurationException)) return;
    event.setResponse(this.renderWelcomePage(event.request));
  });

  /** Symfony re-initialises the routing context from the parent request; there are no sub-requests here. */
  readonly onKernelFinishRequest = listener<'kernel.finish_request'>('RouterListener::onKernelFinishRequest', 'router context restore', (event: FinishRequestEvent) => {
    event.request.attributes.remove('_route_options');
  });
}

/**
 * Gives a routing failure and its cause (both built without a stack) the caller's frames, under their
 * own first lines: one capture, mapped to the sources (debug/stack.ts) instead of Node formatting it.
 */
function withFrames<E extends Error>(wanted: boolean, limit: number, error: E, previous: Error): E {
  if (!wanted) return error;
  Error.stackTraceLimit = limit;
  captureStack(withFrames, [error, previous]);
  return error;
}

/**
 * Initialising the routing context reads the effective method, host and scheme; a malformed one
 * (method override, forwarded-header conflict) is a 400 with the same message, as in RouterListener.php.
 */
function routingContextMethod(request: KernelRequest): string {
  try {
    const method = request.method;
    request.getHost();
    request.getScheme();
    return method;
  } catch (error) {
    if (error instanceof RequestError) throw new BadRequestHttpException(error.message, error);
    throw error;
  }
}

/**
 * What RedirectableUrlMatcher lays over the matched route's parameters for a trailing-slash redirect:
 * the toggled raw path, permanent, no scheme change and the routing context's ports (RequestContext
 * takes the request's port for its own scheme, the default for the other).
 */
function redirectParameters(request: KernelRequest, path: string): Record<string, unknown> {
  const secure = request.isSecure();
  const port = request.getPort();
  return { path, permanent: true, scheme: null, httpPort: secure ? 80 : port, httpsPort: secure ? port : 443 };
}

/**
 * The trailing-slash redirect (FrameworkBundle's RedirectController::urlRedirectAction): 301 to the
 * toggled path (the `path` attribute) on the same host, raw query kept. The router never hands out a
 * path starting with `//` or `/\`; with an empty host the Location stays path-only, so it can never
 * name another origin.
 */
function urlRedirectAction(request: KernelRequest): HttpResponse {
  const host = request.getHost();
  const qs = redirectQuery(request.queryString);
  const location = (host ? request.getSchemeAndHttpHost() : '') + String(request.attributes.get('path')) + (qs ? `?${qs}` : '');
  return HttpResponse.redirect(location.replace(UNSAFE_LOCATION_CHAR, encodeLocationChar), 301);
}
/**
 * urlRedirectAction's `$request->server->get('QUERY_STRING') ?: $request->getQueryString()`: the raw
 * query, unless PHP reads it as false — `0` — when the normalised one (`0=`) is taken instead.
 */
function redirectQuery(raw: string): string {
  return raw === '0' ? normalizeQueryString(raw) : raw;
}

// Named as Symfony's logs and profiles name it.
Object.defineProperty(urlRedirectAction, 'name', { value: 'Symfony\\Bundle\\FrameworkBundle\\Controller\\RedirectController::urlRedirectAction' });
