import type { KernelRequest } from '../http/request.ts';
import type { FinishRequestEvent, RequestEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';

/**
 * A service that follows the request locale (a translator, a number formatter...). Register instances
 * with `createApp({ localeAware: [...] })`. `setLocale` may throw for a locale it does not support; it
 * then gets the request's default locale.
 *
 * Services like this hold one locale for the whole process, as in Symfony. Under concurrent requests
 * they follow the request that most recently passed routing; code that must be exact per request
 * should read `request.locale` (which is always right) or take the request as an argument.
 */
export interface LocaleAware {
  setLocale(locale: string, request?: KernelRequest): void;
  getLocale?(): string;
}

/**
 * Symfony's LocaleAwareListener: after routing, every locale-aware service gets the request locale;
 * when the request is finished they are set back to the default locale (main request) so the next
 * request does not inherit it.
 */
export class LocaleAwareListener {
  private readonly services: readonly LocaleAware[];

  constructor(services: readonly LocaleAware[]) {
    this.services = services;
  }

  readonly onKernelRequest = listener<'kernel.request'>('LocaleAwareListener::onKernelRequest', 'locale-aware services', (event: RequestEvent) => {
    if (this.services.length === 0) return;
    this.setLocale(event.request, event.request.locale);
  });

  readonly onKernelFinishRequest = listener<'kernel.finish_request'>('LocaleAwareListener::onKernelFinishRequest', 'locale-aware services restore', (event: FinishRequestEvent) => {
    if (this.services.length === 0) return;
    this.setLocale(event.request, event.request.defaultLocale);
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
