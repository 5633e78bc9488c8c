/**
 * The Twig templates, as functions. Every interpolated value goes through `e()`, as Twig's autoescape
 * does; irms-web does not escape what a controller returns.
 */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const e = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/** translations/messages.{en,fr}.yaml */
const MESSAGES = {
  en: {
    title: 'Guestbook', sign: 'Sign the guestbook', name: 'Name', message: 'Message', image: 'Picture (PNG, JPEG or GIF)',
    save: 'Save', edit: 'Edit', delete: 'Delete', previous: 'Previous', next: 'Next', empty: 'No entries yet.',
    login: 'Log in', logout: 'Log out', username: 'Username', password: 'Password', thanks: 'Thank you for signing!',
    updated: 'Entry updated.', deleted: 'Entry deleted.', blank: 'This value should not be blank.',
    long: 'This value is too long. It should have 500 characters or less.', type: 'Please upload a PNG, JPEG or GIF image.',
    csrf: 'The CSRF token is invalid. Please try to resubmit the form.', credentials: 'Invalid credentials.',
  },
  fr: {
    title: "Livre d'or", sign: "Signer le livre d'or", name: 'Nom', message: 'Message', image: 'Image (PNG, JPEG ou GIF)',
    save: 'Enregistrer', edit: 'Modifier', delete: 'Supprimer', previous: 'Précédent', next: 'Suivant', empty: 'Aucun message.',
    login: 'Connexion', logout: 'Déconnexion', username: "Nom d'utilisateur", password: 'Mot de passe', thanks: 'Merci pour votre message !',
    updated: 'Message modifié.', deleted: 'Message supprimé.', blank: 'Cette valeur ne doit pas être vide.',
    long: 'Cette chaîne est trop longue. Elle doit avoir au maximum 500 caractères.', type: 'Veuillez envoyer une image PNG, JPEG ou GIF.',
    csrf: 'Le jeton CSRF est invalide. Veuillez renvoyer le formulaire.', credentials: 'Identifiants invalides.',
  },
};
export type Locale = keyof typeof MESSAGES;
export type MessageKey = keyof (typeof MESSAGES)['en'];
export const trans = (locale: string, key: MessageKey): string => (MESSAGES[locale as Locale] ?? MESSAGES.en)[key];

export interface Page {
  locale: string;
  title: string;
  /** the other locale's URL of this page (the language switcher) */
  switchUrl?: string;
  member?: string | null;
  logoutUrl?: string;
  flashes?: Record<string, unknown[]>;
}

/** base.html.twig: a whole page, so that debug mode's toolbar has a </body> to go before. */
export function layout(page: Page, body: string): string {
  const t = (key: MessageKey) => trans(page.locale, key);
  const flashes = Object.entries(page.flashes ?? {})
    .flatMap(([type, messages]) => messages.map((m) => `<p class="flash flash-${e(type)}" role="status">${e(m)}</p>`))
    .join('');
  const user = page.member
    ? `<span class="member">${e(page.member)}</span> <a href="${e(page.logoutUrl)}">${t('logout')}</a>`
    : `<a href="/${e(page.locale)}/login">${t('login')}</a>`;
  const other = page.locale === 'fr' ? 'en' : 'fr';
  return `<!DOCTYPE html>
<html lang="${e(page.locale)}"><head><meta charset="UTF-8"><title>${e(page.title)}</title><link rel="icon" href="data:,"></head>
<body><nav><a href="/${e(page.locale)}/">${t('title')}</a> · ${user}${page.switchUrl ? ` · <a href="${e(page.switchUrl)}" hreflang="${other}">${other.toUpperCase()}</a>` : ''}</nav>
${flashes}<main>${body}</main></body></html>`;
}

export interface FormView {
  action: string;
  csrf: string;
  values: { author: string; message: string };
  errors: Partial<Record<'author' | 'message' | 'image' | '_token', string>>;
  upload: boolean;
}

/** entry/_form.html.twig: the submitted values and each field's error, as form_row() shows them. */
export function entryForm(locale: string, form: FormView): string {
  const t = (key: MessageKey) => trans(locale, key);
  const error = (field: keyof FormView['errors']) => (form.errors[field] ? `<p class="error" data-field="${field}">${e(form.errors[field])}</p>` : '');
  return `<form method="post" action="${e(form.action)}"${form.upload ? ' enctype="multipart/form-data"' : ''}>${error('_token')}
<input type="hidden" name="entry[_token]" value="${e(form.csrf)}">
<label>${t('name')} <input name="entry[author]" value="${e(form.values.author)}"></label>${error('author')}
<label>${t('message')} <textarea name="entry[message]">${e(form.values.message)}</textarea></label>${error('message')}
${form.upload ? `<label>${t('image')} <input type="file" name="entry[image]" accept="image/png,image/jpeg,image/gif"></label>${error('image')}` : ''}
<button>${t('save')}</button></form>`;
}
