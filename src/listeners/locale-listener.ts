import type { KernelRequest } from '../http/request.ts';
import type { FinishRequestEvent, RequestEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';

/** Request attribute: the locale the request had before the route's `_locale` applied (restored on finish). */
const PREVIOUS_LOCALE = '_previous_locale';

/**
 * Symfony's LocaleListener.
 * - setDefaultLocale (before routing): the request's default locale is the configured one.
 * - onKernelRequest (after routing): a truthy `_locale` route attribute becomes the request locale
 *   (restricted to `enabledLocales` when that list is set); otherwise, with `enabledLocales` set, the
 *   best `Accept-Language` match among them is used (the first enabled locale when none matches, as
 *   Request::getPreferredLanguage answers) and the response varies on that header, matched or not:
 *   a shared cache must not serve one language's answer to another.
 * - onKernelFinishRequest: a sub-request (a request handled inside another one) gets back the locale
 *   it had before its route changed it, so the outer request continues with its own; a main request
 *   keeps its locale (as in Symfony), which is what the profile and kernel.terminate see.
 */
export class LocaleListener {
  private readonly enabled: readonly string[] | null;

  constructor(
    private readonly defaultLocale: string,
    enabledLocales: readonly string[] = [],
  ) {
    this.enabled = enabledLocales.length ? [...enabledLocales] : null;
  }

  readonly setDefaultLocale = listener<'kernel.request'>('LocaleListener::setDefaultLocale', 'default locale', (event: RequestEvent) => {
    event.request.defaultLocale = this.defaultLocale;
  });

  readonly onKernelRequest = listener<'kernel.request'>('LocaleListener::onKernelRequest', 'locale from request', (event: RequestEvent) => {
    const request = event.request;
    const locale = request.attributes.get('_locale');
    // LocaleListener::setLocale tests the attribute for PHP truthiness: '0' (a `/0/page` request) is no
    // locale, as '' is, and the request keeps its default (or asks Accept-Language).
    if (typeof locale === 'string' && locale !== '' && locale !== '0') {
      if (this.enabled === null || this.enabled.includes(locale)) this.apply(request, locale);
      return;
    }
    if (this.enabled !== null) {
      // Non-empty `enabled`: getPreferredLanguage answers one of them.
      this.apply(request, request.getPreferredLanguage(this.enabled)!);
      request.attributes.set('_vary_by_language', true);
    }
  });

  readonly onKernelFinishRequest = listener<'kernel.finish_request'>('LocaleListener::onKernelFinishRequest', 'locale restore', (event: FinishRequestEvent) => {
    const request = event.request;
    if (request.isMainRequest) return;
    const previous = request.attributes.get(PREVIOUS_LOCALE);
    if (typeof previous === 'string') request.setLocale(previous);
  });

  private apply(request: KernelRequest, locale: string): void {
    if (!request.isMainRequest) request.attributes.set(PREVIOUS_LOCALE, request.locale);
    request.setLocale(locale);
  }
}
