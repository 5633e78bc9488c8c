import { welcomePage } from '../debug/welcome-page.ts';
import { ProfilerListener } from '../debug/profiler/profiler-listener.ts';
import { WebDebugToolbarListener } from '../debug/toolbar/toolbar-listener.ts';
import { emptyHookTable, type HookTable, type Listener } from '../kernel/hooks.ts';
import type { HookName } from '../kernel/events.ts';
import { LEVELS } from '../log/levels.ts';
import { ContextListener } from '../listeners/context-listener.ts';
import { ControllerListener } from '../listeners/controller-listener.ts';
import { RequestDataCollector, RouterDataCollector } from '../listeners/data-collectors.ts';
import { DebugHandlersListener } from '../listeners/debug-handlers-listener.ts';
import { DisallowRobotsIndexingListener } from '../listeners/disallow-robots-indexing-listener.ts';
import { ErrorListener } from '../listeners/error-listener.ts';
import { FirewallListener } from '../listeners/firewall-listener.ts';
import { HttpCacheListener } from '../listeners/http-cache-listener.ts';
import { IsGrantedListener } from '../listeners/is-granted-listener.ts';
import { JsonRequestTransformerListener } from '../listeners/json-request-transformer-listener.ts';
import { LocaleAwareListener } from '../listeners/locale-aware-listener.ts';
import { LocaleListener } from '../listeners/locale-listener.ts';
import { LoginListener } from '../listeners/login-listener.ts';
import { ParamConverterListener } from '../listeners/param-converter-listener.ts';
import { PathInfoListener } from '../listeners/path-info-listener.ts';
import { RememberMeResponseListener } from '../listeners/remember-me-response-listener.ts';
import { ResponseListener } from '../listeners/response-listener.ts';
import { RouterListener } from '../listeners/router-listener.ts';
import { SecurityListener } from '../listeners/security-listener.ts';
import { SessionListener } from '../listeners/session-listener.ts';
import { StreamedResponseListener } from '../listeners/streamed-response-listener.ts';
import { TemplateListener } from '../listeners/template-listener.ts';
import { ValidateRequestListener } from '../listeners/validate-request-listener.ts';
import { Authenticator } from '../security/authenticator.ts';
import { pipelineServices, type AppServices, type PipelineServices } from './services.ts';

/** A listener that is in the table only in debug mode (absent otherwise, not skipped at run time). */
type Entry<H extends HookName> = Listener<H> | null;

/**
 * The application's hook arrays: CONTRACT §3's tables, row by row, in that order. Rows marked
 * `debugOnly(...)`, and the profiler and toolbar rows, exist only in debug mode; the robots row only
 * while `disallowRobotsIndexing` is on (the default). `ContextListener::onKernelResponse` appears once
 * per stateful firewall context of the firewall map: twice with the default map (`admin`, `main`).
 */
export function buildHookTable(services: AppServices): HookTable {
  const { config, router, logStream } = services;
  const debug = config.debug;
  const pipeline = resolvePipeline(services);
  const debugOnly = <H extends HookName>(l: Listener<H>): Entry<H> => (debug ? l : null);

  // Listener objects: one per Symfony class, built once per app.
  const debugHandlers = new DebugHandlersListener(logStream);
  const validateRequest = new ValidateRequestListener();
  const session = new SessionListener({ store: pipeline.sessionStore, cookieName: config.sessionCookieName, debug });
  const jsonTransformer = new JsonRequestTransformerListener();
  const locale = new LocaleListener(config.defaultLocale, config.enabledLocales);
  const routingFailuresLogged = debug || ![404, 405].every((code) => config.logExcludedHttpCodes.includes(code));
  const routerListener = new RouterListener(router, debug ? (request) => welcomePage(request, router.generate('_profiler_home')) : null, routingFailuresLogged);
  const localeAware = new LocaleAwareListener(pipeline.localeAware);
  const authenticator = new Authenticator({
    map: pipeline.firewallMap,
    signer: pipeline.signer,
    verifier: pipeline.verifyBearerToken,
    refreshSessionMember: pipeline.refreshSessionMember,
    refreshRememberedMember: pipeline.refreshRememberedMember,
    sessionCookieName: config.sessionCookieName,
    rememberMeCookieName: config.rememberMeCookieName,
    loginPath: config.loginPath,
  });
  const firewall = new FirewallListener(pipeline.firewallMap, authenticator);
  const login = new LoginListener({ authenticator, logInfo: debug || logStream.accepts(LEVELS.info) });
  const pathInfo = new PathInfoListener();
  const routerCollector = new RouterDataCollector();
  const requestCollector = new RequestDataCollector();
  const controllerListener = new ControllerListener();
  const paramConverter = new ParamConverterListener();
  const httpCache = new HttpCacheListener();
  const template = new TemplateListener(pipeline.renderTemplate);
  const errorListener = new ErrorListener(debug, config.logExcludedHttpCodes);
  const securityListener = new SecurityListener();
  const isGranted = new IsGrantedListener();
  const contexts = pipeline.firewallMap.statefulContexts().map((context, i) => new ContextListener(context, config.sessionCookieName, i));
  const response = new ResponseListener();
  const rememberMe = new RememberMeResponseListener({ signer: pipeline.signer, cookieName: config.rememberMeCookieName, lifetimeSeconds: config.rememberMeLifetimeSeconds });
  const profiler = debug ? new ProfilerListener(services) : null;
  const toolbar = debug ? new WebDebugToolbarListener(services) : null;
  const robots = config.disallowRobotsIndexing ? new DisallowRobotsIndexingListener() : null;
  const streamed = new StreamedResponseListener();

  const routerWelcomePage = routerListener.onKernelException as Listener<'kernel.exception'>;

  const table = emptyHookTable();
  table['kernel.request'] = rows<'kernel.request'>([
    at(2048, debugOnly(debugHandlers.configure)),           //   1 debug handler configuration
    at(256, validateRequest.onKernelRequest),               //   2 request validation
    at(128, session.onKernelRequest),                       //   3 session start
    at(100, jsonTransformer.onKernelRequest),               //   4 JSON request transformation
    at(100, locale.setDefaultLocale),                       //   5 default locale
    at(32, routerListener.onKernelRequest),                 //   6 routing
    at(16, locale.onKernelRequest),                         //   7 locale from request
    at(15, localeAware.onKernelRequest),                    //   8 locale-aware services
    at(8, firewall.configureLogoutUrlGenerator),            //   9 logout URL generator configuration
    at(8, firewall.onKernelRequest),                        //  10 security firewall
  ]);
  table['kernel.controller'] = rows<'kernel.controller'>([
    login.setup,                                            //   1 login setup
    pathInfo.onKernelController,                            //   2 path information
    debugOnly(routerCollector.onKernelController),          //   3 router data collection
    login.check,                                            //   4 login check
    debugOnly(requestCollector.onKernelController),         //   5 request data collection
    controllerListener.onKernelController,                  //   6 controller annotation handling
    paramConverter.onKernelController,                      //   7 parameter conversion
    httpCache.onKernelController,                           //   8 HTTP cache annotation handling
    at(-128, template.onKernelController),                  //   9 template handling
  ]);
  table['kernel.controller_arguments'] = rows<'kernel.controller_arguments'>([
    errorListener.onControllerArguments,                    //   1 error handler arguments
    securityListener.onKernelControllerArguments,           //   2 security annotation check
    isGranted.onKernelControllerArguments,                  //   3 granted-role annotation check
  ]);
  table['kernel.view'] = rows<'kernel.view'>([
    template.onKernelView,                                  //     template rendering
  ]);
  table['kernel.response'] = rows<'kernel.response'>([
    ...contexts.map((c) => c.onKernelResponse),             // 1–2 firewall context save (one per stateful context)
    response.onKernelResponse,                              //   3 response preparation
    debugOnly(requestCollector.onKernelResponse),           //   4 request data collection
    httpCache.onKernelResponse,                             //   5 HTTP cache headers
    rememberMe.onKernelResponse,                            //   6 remember-me cookie handling
    at(-100, profiler && profiler.onKernelResponse),        //   7 profile recording
    at(-128, debugOnly(errorListener.removeCspHeader)),     //   8 content-security-policy header removal for error pages
    at(-128, toolbar && toolbar.onKernelResponse),          //   9 debug toolbar injection
    at(-255, robots && robots.onResponse),                  //  10 robots indexing disallow
    at(-1000, session.onKernelResponse),                    //  11 session save
    at(-1024, streamed.onKernelResponse),                   //  12 streamed response handling
  ]);
  table['kernel.finish_request'] = rows<'kernel.finish_request'>([
    locale.onKernelFinishRequest,                           //   1 locale restore
    routerListener.onKernelFinishRequest,                   //   2 router context restore
    session.onFinishRequest,                                //   3 session finish
    firewall.onKernelFinishRequest,                         //   4 firewall cleanup
    at(-15, localeAware.onKernelFinishRequest),             //   5 locale-aware services restore
  ]);
  table['kernel.exception'] = rows<'kernel.exception'>([
    profiler && profiler.onKernelException,                 //     remember the error for the profile
    errorListener.logKernelException,                       //     log it (channel request)
    at(-64, debugOnly(routerWelcomePage)),                  //     welcome page for `/`
    at(-128, errorListener.onKernelException),              //     render the error response
  ]);
  table['kernel.terminate'] = rows<'kernel.terminate'>([
    at(-1024, profiler && profiler.onKernelTerminate),      //     store the profile
  ]);
  return table;
}

/**
 * A row with its Symfony priority (symfony-reference.md §2; rows without one have priority 0), so a
 * listener the application adds `{ priority }` lands where Symfony's dispatcher would put it. The table
 * order is the contract's; the priorities only place added listeners.
 */
function at<H extends HookName>(priority: number, row: Listener<H> | null | undefined | false): Listener<H> | null {
  return row ? { ...row, priority } : null;
}

/** The table rows that exist in this mode. */
function rows<H extends HookName>(entries: (Listener<H> | null | undefined | false)[]): Listener<H>[] {
  return entries.filter((e): e is Listener<H> => e !== null && e !== undefined && e !== false);
}

/** Services built by createApp, or defaults when AppServices was assembled by hand (tests). */
function resolvePipeline(services: AppServices): PipelineServices {
  const defaults = services.sessionStore && services.firewallMap && services.signer && services.verifyBearerToken ? null : pipelineServices(services.config);
  return {
    sessionStore: services.sessionStore ?? defaults!.sessionStore,
    firewallMap: services.firewallMap ?? defaults!.firewallMap,
    signer: services.signer ?? defaults!.signer,
    verifyBearerToken: services.verifyBearerToken ?? defaults!.verifyBearerToken,
    refreshSessionMember: services.refreshSessionMember ?? null,
    refreshRememberedMember: services.refreshRememberedMember ?? null,
    roleHierarchy: services.roleHierarchy ?? null,
    voters: services.voters ?? null,
    localeAware: services.localeAware ?? [],
    renderTemplate: services.renderTemplate ?? null,
  };
}
