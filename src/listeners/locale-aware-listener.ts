import type { KernelRequest } from '../http/request.ts';
import type { FinishRequestEvent, RequestEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';
import { unfinishedRequests } from '../kernel/kernel.ts';

/**
 * A service that follows the request locale (a translator, a number formatter...). Register instances
 * with `createApp({ localeAware: [...] })`. `setLocale` may throw for a locale it does not support; it
 * then gets the request's default locale.
 *
 * Services like this hold one locale for the whole process, as in Symfony. Under concurrent requests
 * they follow the request that most recently passed routing among those still in flight (the default
 * locale when none is); code that must be exact per request should read `request.locale` (which is
 * always right) or take the request as an argument.
 */
export interface LocaleAware {
  setLocale(locale: string, request?: KernelRequest): void;
  getLocale?(): string;
}

/** Requests followed at most: one that never reaches kernel.finish_request must not be kept forever. */
const MAX_IN_FLIGHT = 1024;

/**
 * Symfony's LocaleAwareListener: after routing, every locale-aware service gets the request locale;
 * when the request is finished they get the locale of the most recently routed request still in
 * flight, or the default locale when none is, so the next request does not inherit it. (Symfony,
 * handling one request at a time, sets the parent request's locale or the default; resetting to the
 * default while other requests run would leave them with a locale that is none of theirs.)
 */
export class LocaleAwareListener {
  private readonly services: readonly LocaleAware[];
  /** Requests that passed routing and are not finished, in routing order (the last one sets the locale). */
  private readonly inFlight = new Set<KernelRequest>();

  constructor(services: readonly LocaleAware[]) {
    this.services = services;
  }

  readonly onKernelRequest = listener<'kernel.request'>('LocaleAwareListener::onKernelRequest', 'locale-aware services', (event: RequestEvent) => {
    if (this.services.length === 0) return;
    const request = event.request;
    if (this.inFlight.size >= MAX_IN_FLIGHT) this.inFlight.delete(this.inFlight.values().next().value!);
    this.inFlight.add(request);
    this.setLocale(request, request.locale);
  });

  readonly onKernelFinishRequest = listener<'kernel.finish_request'>('LocaleAwareListener::onKernelFinishRequest', 'locale-aware services restore', (event: FinishRequestEvent) => {
    if (this.services.length === 0) return;
    const request = event.request;
    this.inFlight.delete(request);
    let latest: KernelRequest | undefined;
    for (const other of this.inFlight) {
      // A request answered without kernel.finish_request is over: kept, it held the services' locale
      // between requests for good (each later request removes only itself).
      if (unfinishedRequests.has(other)) this.inFlight.delete(other);
      else latest = other; // a Set has no "last": walk it (requests in flight)
    }
    if (latest === undefined) this.setLocale(request, request.defaultLocale);
    else this.setLocale(latest, latest.locale);
  });

  private setLocale(request: KernelRequest, locale: string): void {
    for (const service of this.services) {
      try {
        service.setLocale(locale, request);
      } catch {
        service.setLocale(request.defaultLocale, request);
      }
    }
  }
}
