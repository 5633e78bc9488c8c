/** irms-web: a Symfony-5-style HttpKernel on the Fetch API. */
export { createApp, type App, type AppOptions, type ListenerRegistration, type HandledRequest } from './app/create-app.ts';
export { loadConfig, type AppConfig } from './app/config.ts';
export { HttpKernel } from './kernel/kernel.ts';
export * from './kernel/events.ts';
export * from './kernel/exceptions.ts';
export { listener, insertListener, type Listener, type Placement, type HookTable, type ListenerCall } from './kernel/hooks.ts';
export { KernelRequest } from './http/request.ts';
export { HttpResponse, ResponseHeaders } from './http/response.ts';
export { ParameterBag, HeaderBag } from './http/parameter-bag.ts';
export type { RequestSource, ConnectionInfo } from './http/source.ts';
export type { Session } from './http/session.ts';
export { Router } from './routing/router.ts';
export type { RouteDefinition, RouteOptions } from './routing/route.ts';
export type { LogRecord } from './log/record.ts';
