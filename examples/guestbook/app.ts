/**
 * A guestbook as a Symfony 5.4 team would port one: a paginated list, a form with a CSRF token and an
 * optional picture, validation errors shown with what was typed, redirect-after-post with a flash,
 * edit/delete behind a form login, English and French through the `_locale` route variable.
 * README.md beside this file says what each Symfony piece became.
 */
import {
  BadRequestHttpException,
  createApp,
  csrfToken,
  getMember,
  getTargetPath,
  HttpResponse,
  isCsrfTokenValid,
  logIn,
  logoutUrl,
  NotFoundHttpException,
  removeTargetPath,
  type AppOptions,
  type KernelRequest,
  type RouteDefinition,
} from '../../src/index.ts';
import { e, entryForm, layout, trans, type FormView, type MessageKey, type Page } from './templates.ts';

export interface Entry {
  id: number;
  author: string;
  message: string;
  image: { type: string; bytes: Uint8Array } | null;
}

/** security.yaml's in_memory provider; a real app checks a hashed password. */
const USERS: Record<string, { password: string; roles: string[] }> = { admin: { password: 'admin-pass', roles: ['ROLE_ADMIN'] } };
const PER_PAGE = 5;
/**
 * Entries kept, newest first: anyone may sign, and this store is memory, not Doctrine's database, so
 * the oldest entry goes when a new one would pass the bound (at most this many pictures of BODY_LIMIT).
 */
export const MAX_ENTRIES = 100;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif']);
/** BODY_LIMIT: a larger upload is answered 413 before the controller runs (php.ini's post_max_size). */
export const BODY_LIMIT = 256 * 1024;
const LOCALE = { _locale: 'en|fr' };

/** Names a controller as Symfony would (`App\Controller\EntryController::new`), for logs and the profiler. */
function named<T extends Function>(name: string, fn: T): T {
  return Object.defineProperty(fn, 'name', { value: `App\\Controller\\${name}` });
}

/** PHP's gettype() of a request parameter that is no string (a JSON body's number or boolean, or `a[]=` and `a[k]=`'s array). */
function phpType(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'double';
  return typeof value === 'boolean' ? 'boolean' : 'array';
}

/** The page frame every controller fills: locale, language switcher, member, flashes (read once). */
function page(request: KernelRequest, title: string, switchParams: Record<string, unknown> = {}): Page {
  const locale = request.getLocale();
  const member = getMember(request);
  const route = String(request.attributes.get('_route'));
  return {
    locale,
    title,
    switchUrl: request.generateUrl(route, { ...switchParams, _locale: locale === 'fr' ? 'en' : 'fr' }),
    member: member?.memberId ?? null,
    logoutUrl: member ? logoutUrl(request) ?? '' : '',
    // Twig's app.flashes: reading them uses the session, so every page is `private`, as in Symfony.
    flashes: request.getSession().getFlashBag().all(),
  };
}

/** `options` are createApp's (debug, logSink, …); its `listeners` come after the app's own. */
export function createGuestbookApp({ listeners = [], ...options }: AppOptions = {}) {
  const entries: Entry[] = [];
  let nextId = 1;
  const find = (id: unknown): Entry => {
    const entry = entries.find((candidate) => candidate.id === Number(id));
    if (!entry) throw new NotFoundHttpException('Entry not found.');
    return entry;
  };

  /** The form type's handleRequest + validation: the errors by field, the values as submitted. */
  function submit(request: KernelRequest, tokenId: string, upload: boolean) {
    const data = request.request.get('entry');
    const fields = data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
    const values = { author: typeof fields.author === 'string' ? fields.author.trim() : '', message: typeof fields.message === 'string' ? fields.message.trim() : '' };
    const errors: FormView['errors'] = {};
    const t = (key: MessageKey) => trans(request.getLocale(), key);
    if (!isCsrfTokenValid(request, tokenId, fields._token)) errors._token = t('csrf');
    if (values.author === '') errors.author = t('blank');
    if (values.message === '') errors.message = t('blank');
    else if ([...values.message].length > 500) errors.message = t('long'); // Length counts characters, not UTF-16 units
    // An empty file input is null, as Symfony's FileBag gives it.
    const file = upload && fields.image instanceof File ? fields.image : null;
    if (file && !IMAGE_TYPES.has(file.type)) errors.image = t('type');
    return { values, errors, file, valid: Object.keys(errors).length === 0 };
  }

  /** `$this->renderForm()`: a submitted, invalid form is answered 422 (Symfony 5.3+), so Turbo shows it. */
  function formPage(request: KernelRequest, title: string, form: FormView, status: number, switchParams?: Record<string, unknown>) {
    return HttpResponse.html(layout(page(request, title, switchParams), `<h1>${e(title)}</h1>${entryForm(request.getLocale(), form)}`), status);
  }

  const routes: RouteDefinition[] = [
    {
      name: 'home',
      path: '/',
      methods: ['GET'],
      controller: named('HomeController::index', (request: KernelRequest) =>
        HttpResponse.redirect(request.generateUrl('entry_index', { _locale: request.getPreferredLanguage(['en', 'fr']) ?? 'en' }))),
    },
    {
      name: 'entry_index',
      path: '/:_locale/',
      methods: ['GET'],
      requirements: LOCALE,
      controller: named('EntryController::index', (request: KernelRequest) => {
        const pages = Math.max(1, Math.ceil(entries.length / PER_PAGE));
        const current = request.query.getInt('page', 1);
        // Pagerfanta's OutOfRangeCurrentPageException becomes a 404 in Symfony's integration.
        if (current < 1 || current > pages) throw new NotFoundHttpException(`Page ${current} does not exist.`);
        const locale = request.getLocale();
        const t = (key: MessageKey) => trans(locale, key);
        const member = getMember(request);
        const shown = [...entries].reverse().slice((current - 1) * PER_PAGE, current * PER_PAGE);
        const items = shown.map((entry) => `<li class="entry" id="entry-${entry.id}"><strong>${e(entry.author)}</strong> <q>${e(entry.message)}</q>` +
          (entry.image ? ` <img src="${e(request.generateUrl('entry_image', { id: entry.id }))}" alt="" width="48">` : '') +
          (member ? ` <a href="${e(request.generateUrl('entry_edit', { id: entry.id }))}">${t('edit')}</a>` +
            `<form method="post" action="${e(request.generateUrl('entry_delete', { id: entry.id }))}" class="delete"><input type="hidden" name="_token" value="${e(csrfToken(request, `delete${entry.id}`))}"><button>${t('delete')}</button></form>` : '') +
          '</li>').join('');
        const link = (n: number, rel: string, label: string) => `<a rel="${rel}" href="${e(request.generateUrl('entry_index', n === 1 ? {} : { page: n }))}">${label}</a>`;
        const pager = `<nav class="pager">${current > 1 ? link(current - 1, 'prev', t('previous')) : ''} <span>${current} / ${pages}</span> ${current < pages ? link(current + 1, 'next', t('next')) : ''}</nav>`;
        return HttpResponse.html(layout(page(request, t('title'), current === 1 ? {} : { page: current }),
          `<h1>${t('title')}</h1><p><a href="${e(request.generateUrl('entry_new'))}">${t('sign')}</a></p>` +
          (items ? `<ul class="entries">${items}</ul>` : `<p>${t('empty')}</p>`) + pager));
      }),
    },
    {
      name: 'entry_new',
      path: '/:_locale/entries/new',
      methods: ['GET', 'POST'],
      requirements: LOCALE,
      controller: named('EntryController::new', (request: KernelRequest) => {
        const title = trans(request.getLocale(), 'sign');
        const action = request.generateUrl('entry_new');
        if (request.isMethod('GET')) {
          return formPage(request, title, { action, csrf: csrfToken(request, 'entry'), values: { author: '', message: '' }, errors: {}, upload: true }, 200);
        }
        const form = submit(request, 'entry', true);
        if (!form.valid) return formPage(request, title, { action, csrf: csrfToken(request, 'entry'), values: form.values, errors: form.errors, upload: true }, 422);
        const save = (image: Entry['image']) => {
          entries.push({ id: nextId++, author: form.values.author, message: form.values.message, image });
          if (entries.length > MAX_ENTRIES) entries.splice(0, entries.length - MAX_ENTRIES);
          request.getSession().getFlashBag().add('success', trans(request.getLocale(), 'thanks'));
          return HttpResponse.redirect(request.generateUrl('entry_index'), 303);
        };
        const file = form.file;
        return file ? file.arrayBuffer().then((buffer) => save({ type: file.type, bytes: new Uint8Array(buffer) })) : save(null);
      }),
    },
    {
      name: 'entry_image',
      path: '/entries/:id/image',
      methods: ['GET'],
      requirements: { id: '\\d+' },
      controller: named('EntryController::image', (request: KernelRequest) => {
        const image = find(request.attributes.get('id')).image;
        if (!image) throw new NotFoundHttpException('This entry has no picture.');
        return new HttpResponse(image.bytes, 200, { 'content-type': image.type, 'x-content-type-options': 'nosniff' });
      }),
    },
    {
      name: 'entry_edit',
      path: '/:_locale/entries/:id/edit',
      methods: ['GET', 'POST'],
      requirements: { ...LOCALE, id: '\\d+' },
      options: { isGranted: 'ROLE_ADMIN' },
      controller: named('EntryController::edit', (request: KernelRequest) => {
        const entry = find(request.attributes.get('id'));
        const title = `${trans(request.getLocale(), 'edit')} #${entry.id}`;
        const action = request.generateUrl('entry_edit', { id: entry.id });
        const tokenId = `edit${entry.id}`;
        const switchParams = { id: entry.id };
        if (request.isMethod('GET')) {
          return formPage(request, title, { action, csrf: csrfToken(request, tokenId), values: entry, errors: {}, upload: false }, 200, switchParams);
        }
        const form = submit(request, tokenId, false);
        if (!form.valid) return formPage(request, title, { action, csrf: csrfToken(request, tokenId), values: form.values, errors: form.errors, upload: false }, 422, switchParams);
        Object.assign(entry, form.values);
        request.getSession().getFlashBag().add('success', trans(request.getLocale(), 'updated'));
        return HttpResponse.redirect(request.generateUrl('entry_index'), 303);
      }),
    },
    {
      name: 'entry_delete',
      path: '/:_locale/entries/:id/delete',
      methods: ['POST'],
      requirements: { ...LOCALE, id: '\\d+' },
      options: { isGranted: 'ROLE_ADMIN' },
      controller: named('EntryController::delete', (request: KernelRequest) => {
        const entry = find(request.attributes.get('id'));
        if (isCsrfTokenValid(request, `delete${entry.id}`, request.request.get('_token'))) {
          entries.splice(entries.indexOf(entry), 1);
          request.getSession().getFlashBag().add('success', trans(request.getLocale(), 'deleted'));
        }
        return HttpResponse.redirect(request.generateUrl('entry_index'), 303);
      }),
    },
    {
      name: 'login',
      path: '/:_locale/login',
      methods: ['GET', 'POST'],
      requirements: LOCALE,
      controller: named('SecurityController::login', (request: KernelRequest) => {
        const t = (key: MessageKey) => trans(request.getLocale(), key);
        let error = '';
        let username = '';
        if (request.isMethod('POST')) {
          const given = request.request.get('_username') ?? '';
          // FormLoginAuthenticator's own check: `_username[]=admin` is a 400, not a login attempt.
          if (typeof given !== 'string') throw new BadRequestHttpException(`The key "_username" must be a string, "${phpType(given)}" given.`);
          username = given;
          const user = Object.hasOwn(USERS, username) ? USERS[username] : undefined;
          // form_login with enable_csrf: a bad token fails as bad credentials do.
          if (!isCsrfTokenValid(request, 'authenticate', request.request.get('_csrf_token'))) error = t('csrf');
          else if (!user || user.password !== request.request.get('_password')) error = t('credentials');
          else {
            logIn(request, { memberId: username, irmsToken: `session-${username}`, roles: user.roles });
            const target = getTargetPath(request);
            removeTargetPath(request);
            return HttpResponse.redirect(target ?? request.generateUrl('entry_index'));
          }
        }
        return HttpResponse.html(layout(page(request, t('login')),
          `<h1>${t('login')}</h1>${error ? `<p class="error">${e(error)}</p>` : ''}<form method="post" action="${e(request.generateUrl('login'))}">` +
          `<input type="hidden" name="_csrf_token" value="${e(csrfToken(request, 'authenticate'))}">` +
          `<label>${t('username')} <input name="_username" value="${e(username)}"></label> <label>${t('password')} <input type="password" name="_password"></label> <button>${t('login')}</button></form>`),
);
      }),
    },
    // The firewall logs out on this path before routing's controller could run, as Symfony's LogoutListener.
    { name: 'logout', path: '/logout', methods: ['GET'], controller: named('SecurityController::logout', () => { throw new Error("Don't forget to activate logout in security.yaml"); }) },
  ];

  return createApp({
    routes,
    enabledLocales: ['en', 'fr'],
    bodyLimit: BODY_LIMIT,
    firewalls: [
      { name: 'dev', pattern: /^\/(_(profiler|wdt)|css|images|js)\//, security: false },
      { name: 'main', loginPath: 'login', logoutPath: 'logout', logoutTarget: 'home' },
    ],
    listeners: [
      {
        hook: 'kernel.response',
        listener: {
          id: 'App\\EventListener\\ContentSecurityPolicyListener::onKernelResponse',
          role: 'content security policy',
          // NelmioSecurityBundle's csp: in debug mode the toolbar adds its nonce to this policy.
          call(event) {
            if (!event.response.headers.has('content-security-policy')) event.response.headers.set('content-security-policy', "default-src 'self'; img-src 'self' data:");
          },
        },
      },
      ...listeners,
    ],
    refreshMember: (member) => (Object.hasOwn(USERS, member.memberId) ? { memberId: member.memberId, roles: USERS[member.memberId]!.roles } : null),
    ...options,
  });
}
