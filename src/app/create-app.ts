import { assertOptionNames } from './route-option-names.ts';
import { HttpKernel, type MaybePromise } from '../kernel/kernel.ts';
import type { HookName } from '../kernel/events.ts';
import { insertListener, type Listener, type Placement } from '../kernel/hooks.ts';
import { IpMatcher } from '../http/ip.ts';
import { KernelRequest, type RequestSettings } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import { fetchSource, type ConnectionInfo, type DenoServeInfo, type RequestSource } from '../http/source.ts';
import { toFetchResponse } from '../http/fetch-response.ts';
import { INTERNAL_ERROR_BODY, INTERNAL_ERROR_HEADERS } from '../http/internal-error.ts';
import { reportingFailures } from '../http/failing-stream-report.ts';
import { LogStream, stderrSink, type LogSink } from '../log/logger.ts';
import { Router } from '../routing/router.ts';
import type { RouteDefinition } from '../routing/route.ts';
import { profilerRoutes } from '../debug/profiler/routes.ts';
import { Profiler } from '../debug/profiler/profiler.ts';
import { messageOf } from '../debug/error-page/safe-json.ts';
import { stackOf } from '../debug/stack.ts';
import { DisallowRobotsIndexingListener } from '../listeners/disallow-robots-indexing-listener.ts';
import { dropLateHeadBody, ResponseListener } from '../listeners/response-listener.ts';
import { loadConfig, type AppConfig, type Env } from './config.ts';
import { checkCreateAppOptions } from './option-checks.ts';
import { controllerPlan } from './controller-plan.ts';
import { buildHookTable } from './listeners.ts';
import { pipelineServices, type AppServices, type PipelineOptions } from './services.ts';
import { checkSecurityRouteNames } from './security-paths.ts';

/** A user listener and where it goes; the built-in listeners keep their relative order. */
export interface ListenerRegistration<H extends HookName = HookName> {
  hook: H;
  listener: Listener<H>;
  /** Absent: at the listener's own `priority`, else 0, Symfony's default (not the end of the hook). */
  placement?: Placement;
}

/** A registration for any one hook, its listener typed by that hook (a union, one member per hook). */
export type AnyListenerRegistration = { [H in HookName]: ListenerRegistration<H> }[HookName];

export interface AppOptions extends Partial<AppConfig>, PipelineOptions {
  /** The application's routes, matched after the profiler's (debug) in table order. */
  routes?: readonly RouteDefinition[];
  /** Each entry's `hook` types its listener's event: `{ hook: 'kernel.response', listener: { …, call(event) {…} } }`. */
  listeners?: readonly AnyListenerRegistration[];
  /** Environment to read configuration from (default: the process environment). */
  environment?: Env;
  /** Where log lines go (default: stderr). */
  logSink?: LogSink;
}

export interface HandledRequest {
  response: HttpResponse;
  /**
   * Runs kernel.terminate; call it once the response has been handed to the client. Null when the
   * app has no kernel.terminate listener (production by default): there is nothing to wait for. Its
   * promise (it never rejects) says when the listeners are done, for a host that waits at shutdown.
   */
  terminate: (() => void | Promise<void>) | null;
  /**
   * The request as the kernel saw it. A host that fails to send the response (a body stream that
   * errors) logs that on `request.logger`, so the record carries the request's url, method and id.
   */
  request: KernelRequest;
}

export interface App {
  readonly config: AppConfig;
  readonly router: Router;
  readonly kernel: HttpKernel;
  readonly services: AppServices;
  /** Fetch entry for any Fetch host (CONTRACT §1): a promise of the Response; bound, so it can be passed around. */
  fetch(request: Request, info?: ConnectionInfo | DenoServeInfo): Promise<Response>;
  /**
   * `fetch` without the promise when the request was handled synchronously (Hono's signature,
   * `Response | Promise<Response>`), for hosts that accept either: Deno.serve then answers without
   * waiting for a microtask (denoServeHandler uses it). Bound.
   */
  respond(request: Request, info?: ConnectionInfo | DenoServeInfo): MaybePromise<Response>;
  /**
   * Adapter entry: computes the response without building Fetch objects. Synchronous (no promise)
   * when every listener and the controller were; a host writes the response as soon as it has it.
   */
  handle(source: RequestSource): MaybePromise<HandledRequest>;
  /** Writes a record on the app's log stream outside any request (startup, shutdown). */
  log(level: 'info' | 'warning' | 'error', message: string): void;
}

/** The application: the kernel plus its configuration, routes and listener tables. */
export function createApp(options: AppOptions = {}): App {
  checkCreateAppOptions(options);
  const { routes = [], listeners = [], environment, logSink, sessionStore, firewalls, accessControl, verifyBearerToken, refreshMember, roleHierarchy, voters, localeAware, renderTemplate, requestIdHeader, ...overrides } = options;
  const config = loadConfig(overrides, environment);
  const logStream = new LogStream(logSink ?? stderrSink(), config.logLevel, config.logFormat);
  const profiler = config.debug ? Profiler.fromDsn(config.profilerDsn) : undefined;
  // The default locale picks a localized route outside a request, as Symfony's router gets kernel.default_locale.
  const router = new Router([...(config.debug ? profilerRoutes(() => services) : []), ...routes], { defaultLocale: config.defaultLocale });
  for (const route of routes) assertOptionNames(route);
  const services: AppServices = { config, router, logStream, profiler, ...pipelineServices(config, { sessionStore, firewalls, accessControl, verifyBearerToken, refreshMember, roleHierarchy, voters, localeAware, renderTemplate }) };
  checkSecurityRouteNames(services.firewallMap!, config.loginPath, router);

  const hooks = buildHookTable(services);
  for (const { hook, listener, placement } of listeners) {
    if (!Object.hasOwn(hooks, hook)) throw new Error(`Unknown hook ${JSON.stringify(hook)} for listener ${JSON.stringify(listener?.id)}: the hooks are ${Object.keys(hooks).join(', ')}.`);
    insertListener(hooks[hook] as Listener[], listener as Listener, placement);
  }
  const plan = config.debug || listeners.length > 0 ? null : controllerPlan(router, hooks);
  // CONTRACT §9's defaults for the responses that skip kernel.response (the kernel's last resort, an
  // error response a kernel.response listener failed on): the same listeners, the robots one as configured.
  const finishers = [new ResponseListener().onKernelResponse, ...(config.disallowRobotsIndexing ? [new DisallowRobotsIndexingListener().onResponse] : [])];
  const kernel = new HttpKernel(hooks, config.debug, plan, finishers);
  services.kernel = kernel;
  if (config.debug) enableSourceMaps();

  const settings: RequestSettings = {
    trustedProxies: new IpMatcher(config.trustedProxies),
    trustedHeaders: new Set(config.trustedHeaders),
    trustedHosts: config.trustedHosts.map((pattern) => new RegExp(pattern, 'i')),
    bodyLimit: config.bodyLimit,
    httpMethodOverride: config.httpMethodOverride,
    defaultLocale: config.defaultLocale,
    logStream,
    debug: config.debug,
    generateUrl: (name, params, options) => router.generate(name, params, options),
    requestIdHeader: requestIdHeader?.toLowerCase(),
    sessionCookieName: config.sessionCookieName,
    roleHierarchy: services.roleHierarchy,
    voters: services.voters,
  };
  const hasTerminateListeners = hooks['kernel.terminate'].length > 0;

  const handled = (request: KernelRequest, response: HttpResponse): HandledRequest => ({
    response,
    terminate: hasTerminateListeners ? () => kernel.terminate(request, response) : null,
    request,
  });

  function handle(source: RequestSource): MaybePromise<HandledRequest> {
    const request = new KernelRequest(source, settings);
    const response = kernel.handle(request);
    return response instanceof Promise ? response.then((r) => handled(request, r)) : handled(request, response);
  }

  /** Always a Response: the kernel always answers, and what Fetch cannot carry becomes the plain 500. */
  function respond(request: Request, info?: ConnectionInfo | DenoServeInfo): MaybePromise<Response> {
    try {
      const result = handle(fetchSource(request, info));
      return result instanceof Promise ? result.then((h) => fetchResponse(h, request), (error: unknown) => internalError(request, error)) : fetchResponse(result, request);
    } catch (error) {
      return internalError(request, error);
    }
  }

  function fetch(request: Request, info?: ConnectionInfo | DenoServeInfo): Promise<Response> {
    const result = respond(request, info);
    return result instanceof Promise ? result : Promise.resolve(result);
  }

  function fetchResponse(handled: HandledRequest, request: Request): Response {
    let response: Response;
    let terminate = handled.terminate;
    try {
      const head = request.method === 'HEAD';
      if (head) dropLateHeadBody(handled.response);
      response = toFetchResponse(handled.response);
      if (!head && handled.response.isStreamed && response.body !== null) response = reportingFailures(response, handled.request);
    } catch (error) {
      // A response the kernel made that Fetch refuses: a body already read, a 1xx status. kernel.terminate
      // is told of the 500 the client got instead, so that its profile does not say 200 or 103.
      response = internalError(request, error);
      if (terminate) {
        const sent = new HttpResponse(INTERNAL_ERROR_BODY, 500, INTERNAL_ERROR_HEADERS);
        terminate = () => kernel.terminate(handled.request, sent);
      }
    }
    // The host gets the response first; kernel.terminate (profile storage) runs on a later tick.
    if (terminate) setTimeout(terminate, 0);
    return response;
  }

  /**
   * The plain 500 the Node adapter answers when it cannot write the kernel's response
   * (runtime/node/listener.ts, failures.ts), logged as it logs it: the hosts answer alike.
   */
  function internalError(request: Request, error: unknown): Response {
    try {
      log('error', `Unhandled error while handling a request: ${stackOf(error) ?? messageOf(error)}`);
    } catch {
      // the log stream failed too: the answer still goes
    }
    let body: string | null = INTERNAL_ERROR_BODY;
    try {
      if (request.method === 'HEAD') body = null;
    } catch {
      // not a Request: the body goes
    }
    return new Response(body, { status: 500, headers: INTERNAL_ERROR_HEADERS });
  }

  function log(level: 'info' | 'warning' | 'error', message: string): void {
    const levels = { info: 200, warning: 300, error: 400 } as const;
    logStream.write({ datetime: new Date(), channel: 'app', level: levels[level], levelName: level, message, context: {}, extra: {} });
  }

  return { config, router, kernel, services, fetch, respond, handle, log };
}

/** Stack traces of the bundle point at src/*.ts (Node reads the linked source maps). */
function enableSourceMaps(): void {
  const proc = (globalThis as { process?: { setSourceMapsEnabled?: (on: boolean) => void } }).process;
  proc?.setSourceMapsEnabled?.(true);
  // V8 keeps 10 frames by default; the error page is more useful with the whole way down.
  if (Error.stackTraceLimit < 50) Error.stackTraceLimit = 50;
}
