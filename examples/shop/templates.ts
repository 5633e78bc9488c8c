/**
 * The Twig templates, as functions. Every interpolated value goes through `e()`, as Twig's autoescape
 * does; irms-web does not escape what a renderer returns.
 */
import type { Product } from './catalog.ts';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const e = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]!);

const TRANSLATIONS: Record<string, Record<string, string>> = {
  en: { products: 'Products', price: 'Price', out: 'Out of stock', buy: 'Add to basket', hello: 'Hello', logout: 'Log out' },
  fr: { products: 'Produits', price: 'Prix', out: 'Rupture de stock', buy: 'Ajouter au panier', hello: 'Bonjour', logout: 'Se déconnecter' },
};
const t = (locale: unknown, key: string): string => (TRANSLATIONS[String(locale)] ?? TRANSLATIONS.en!)[key]!;

/** base.html.twig: a full page, so that debug mode's toolbar has a </body> to go before. */
const layout = (title: string, body: string, locale: unknown = 'en') =>
  `<!DOCTYPE html>\n<html lang="${e(locale)}"><head><meta charset="UTF-8"><title>${e(title)}</title></head><body>${body}</body></html>`;

/** base.html.twig's `{% for type, messages in app.flashes %}` loop. */
const showFlashes = (flashes: unknown): string =>
  Object.entries((flashes ?? {}) as Record<string, unknown[]>)
    .flatMap(([type, messages]) => messages.map((m) => `<p class="flash-${e(type)}">${e(m)}</p>`))
    .join('');

type Data = Record<string, any>;
const TEMPLATES: Record<string, (data: Data) => string> = {
  'product/list': ({ products, locale }) =>
    layout(t(locale, 'products'), `<h1>${t(locale, 'products')}</h1><ul>${(products as Product[])
      .map((p) => `<li><a href="/${e(locale)}/products/${p.id}">${e(p.name)}</a> ${e(p.price)} €</li>`)
      .join('')}</ul>`, locale),
  'product/show': ({ product, flashes, locale }) =>
    layout(product.name, `${showFlashes(flashes)}<h1>${e(product.name)}</h1><p>${t(locale, 'price')}: ${e(product.price)} €</p>` +
      (product.stock > 0
        ? `<form method="post" action="/${e(locale)}/products/${product.id}/buy"><button>${t(locale, 'buy')}</button></form>`
        : `<p>${t(locale, 'out')}</p>`), locale),
  'security/login': ({ action, error, csrf }) =>
    layout('Log in', `${error ? `<p class="error">${e(error)}</p>` : ''}<form method="post" action="${e(action)}">` +
      `<input type="hidden" name="_csrf_token" value="${e(csrf)}">` +
      `<input name="_username"><input name="_password" type="password"><button>Log in</button></form>`),
  'account/index': ({ member, flashes, logout, locale }) =>
    layout('Account', showFlashes(flashes) +
      `<h1>${t(locale, 'hello')} ${e(member)}</h1><a href="${e(logout)}">${t(locale, 'logout')}</a>`, locale),
  'admin/dashboard': ({ member, count, logout }) =>
    layout('Admin', `<h1>Back office</h1><p>${e(member)} — ${e(count)} products</p><a href="${e(logout)}">Log out</a>`),
  'error/out-of-stock': ({ product }) => layout('Out of stock', `<h1>Sorry</h1><p>${e(product.name)} is out of stock.</p>`),
};

export function render(name: string, data: Data): string {
  const template = TEMPLATES[name];
  if (!template) throw new Error(`Unable to find template "${name}".`);
  return template(data);
}
