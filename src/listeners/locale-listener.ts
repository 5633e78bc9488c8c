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
    if (typeof locale === 'string' && locale !== '') {
      if (this.enabled === null || this.enabled.includes(locale)) this.apply(request, locale);
      return;
    }
    if (this.enabled !== null) {
      this.apply(request, preferredLanguage(request.headers.get('accept-language'), this.enabled));
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

/**
 * Request::getPreferredLanguage($enabled): the `Accept-Language` tags by quality (ties in header
 * order), each as Symfony's getLanguages spells it (`de-ch` → `de_CH`: primary subtag lower-cased, the
 * others upper-cased; `i-klingon` → `klingon`), each followed by its primary language; the first of
 * them that is enabled, else the first enabled locale. Tags with q=0 are refused (RFC 9110 §12.4.2).
 */
export function preferredLanguage(header: string | null, enabled: readonly string[]): string {
  if (!header) return enabled[0]!;
  const tags: { tag: string; q: number; at: number }[] = [];
  const parts = header.split(',', 32);
  for (let at = 0; at < parts.length; at++) {
    const [tag, ...params] = parts[at]!.trim().split(';');
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k?.trim().toLowerCase() === 'q') q = Number(v);
    }
    if (tag && q > 0) tags.push({ tag: tag.trim(), q, at });
  }
  tags.sort((a, b) => b.q - a.q || a.at - b.at);
  const languages = tags.map(({ tag }) => symfonyLanguage(tag));
  for (const language of languages) {
    if (enabled.includes(language)) return language;
    const underscore = language.indexOf('_');
    if (underscore > 0) {
      const primary = language.slice(0, underscore);
      if (!languages.includes(primary) && enabled.includes(primary)) return primary;
    }
  }
  return enabled[0]!;
}

/** A language tag as Request::getLanguages writes it. */
function symfonyLanguage(tag: string): string {
  if (!tag.includes('-')) return tag;
  const codes = tag.split('-');
  if (codes[0] === 'i') return codes[1] ?? tag;
  return codes[0]!.toLowerCase() + codes.slice(1).map((c) => `_${c.toUpperCase()}`).join('');
}
