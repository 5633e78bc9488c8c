/**
 * A small Symfony 5.4 shop, ported to irms-web. Each piece names the Symfony construct it replaces.
 * README.md beside this file says what it shows and how to run it.
 */
import {
  createApp,
  csrfToken,
  getMember,
  isCsrfTokenValid,
  getTargetPath,
  HttpResponse,
  logIn,
  logoutUrl,
  removeTargetPath,
  type AppOptions,
  type KernelRequest,
  type RouteDefinition,
} from '../../src/index.ts';
import { products, findProduct, addProduct, reserve, OutOfStockError, type Product } from './catalog.ts';
import { render } from './templates.ts';

/** security.yaml's in_memory provider; a real app checks hashed passwords. */
const USERS: Record<string, { password: string; roles: string[] }> = {
  alice: { password: 'alice-pass', roles: ['ROLE_USER'] },
  admin: { password: 'admin-pass', roles: ['ROLE_USER', 'ROLE_ADMIN'] },
};

/** The API's bearer tokens (an ApiTokenAuthenticator's lookup). */
const API_TOKENS: Record<string, { memberId: string; roles: string[] }> = {
  'shop-api-token': { memberId: 'api-client', roles: ['ROLE_API'] },
};

/** Symfony's `App\Controller\ProductController::show`, named so that logs and the profiler say so. */
function named<T extends Function>(name: string, fn: T): T {
  return Object.defineProperty(fn, 'name', { value: name });
}

/** The form login's POST handler (Symfony's form_login authenticator plus its success handler). */
function loginRoute(name: string, path: string, home: string): RouteDefinition {
  return {
    name,
    path,
    methods: ['GET', 'POST'],
    controller: named(`App\\Controller\\SecurityController::${name}`, (request: KernelRequest) => {
      if (request.isMethod('GET')) {
        const error = request.getSession().getFlashBag().get('error')[0] ?? null;
        return HttpResponse.html(render('security/login', { action: path, error, csrf: csrfToken(request, 'authenticate') }));
      }
      // form_login's enable_csrf: a missing or wrong token fails the login as bad credentials do.
      if (!isCsrfTokenValid(request, 'authenticate', request.request.get('_csrf_token'))) {
        request.getSession().getFlashBag().set('error', 'Invalid CSRF token.');
        return HttpResponse.redirect(path);
      }
      const username = String(request.request.get('_username') ?? '');
      const user = Object.hasOwn(USERS, username) ? USERS[username] : undefined;
      if (!user || user.password !== request.request.get('_password')) {
        request.getSession().getFlashBag().set('error', 'Invalid credentials.');
        return HttpResponse.redirect(path);
      }
      logIn(request, { memberId: username, irmsToken: `session-${username}`, roles: user.roles });
      request.getSession().getFlashBag().add('success', `Welcome, ${username}!`);
      const target = getTargetPath(request);
      removeTargetPath(request);
      return HttpResponse.redirect(target ?? home);
    }),
  };
}

/** The logout route: as in Symfony, the firewall answers it and the controller never runs. */
function logoutRoute(name: string, path: string): RouteDefinition {
  return {
    name,
    path,
    controller: named(`App\\Controller\\SecurityController::${name}`, () => {
      throw new Error("Don't forget to activate logout in security.yaml");
    }),
  };
}

const LOCALE = { _locale: 'en|fr' };

export const routes: RouteDefinition[] = [
  {
    name: 'home',
    path: '/',
    methods: ['GET'],
    controller: named('App\\Controller\\HomeController::index', (request: KernelRequest) =>
      HttpResponse.redirect(request.generateUrl('product_list', { _locale: request.getPreferredLanguage(['en', 'fr']) ?? 'en' }))),
  },
  {
    name: 'product_list',
    path: '/:_locale/products',
    methods: ['GET'],
    requirements: LOCALE,
    // @Template("product/list.html.twig")
    options: { template: 'product/list' },
    controller: named('App\\Controller\\ProductController::list', () => ({ products })),
  },
  {
    name: 'product_show',
    path: '/:_locale/products/:id',
    methods: ['GET'],
    requirements: { ...LOCALE, id: '\\d+' },
    // @ParamConverter("product") + @Template: a missing product is a 404 before the controller runs.
    options: { template: 'product/show', converters: { id: (id) => findProduct(Number(id)) ?? null } },
    // The flashes too (base.html.twig's app.flashes): product_buy redirects here with "… is in your basket."
    controller: named('App\\Controller\\ProductController::show', (request: KernelRequest) => ({
      product: request.attributes.get('id') as Product,
      flashes: request.getSession().getFlashBag().all(),
    })),
  },
  {
    name: 'product_buy',
    path: '/:_locale/products/:id/buy',
    methods: ['POST'],
    requirements: { ...LOCALE, id: '\\d+' },
    options: { requiresLogin: true, converters: { id: (id) => findProduct(Number(id)) ?? null } },
    controller: named('App\\Controller\\ProductController::buy', (request: KernelRequest) => {
      const product = request.attributes.get('id') as Product;
      reserve(product); // throws OutOfStockError, which OutOfStockListener turns into a 409
      request.getSession().getFlashBag().add('success', `${product.name} is in your basket.`);
      return HttpResponse.redirect(request.generateUrl('product_show', { id: product.id }));
    }),
  },
  {
    name: 'account',
    path: '/:_locale/account',
    methods: ['GET'],
    requirements: LOCALE,
    options: { requiresLogin: true, template: 'account/index' },
    controller: named('App\\Controller\\AccountController::index', (request: KernelRequest) => ({
      member: getMember(request)!.memberId,
      flashes: request.getSession().getFlashBag().all(),
      logout: logoutUrl(request), // Twig's logout_path()
    })),
  },
  loginRoute('login', '/login', '/'),
  logoutRoute('logout', '/logout'),

  // The JSON API: a stateless firewall, bearer tokens (createApp's verifyBearerToken below).
  {
    name: 'api_product_index',
    path: '/api/products',
    methods: ['GET'],
    options: { requiresLogin: true },
    controller: named('App\\Controller\\Api\\ProductController::index', () => HttpResponse.json(products)),
  },
  {
    name: 'api_product_create',
    path: '/api/products',
    methods: ['POST'],
    options: { isGranted: 'ROLE_API' },
    controller: named('App\\Controller\\Api\\ProductController::create', (request: KernelRequest) => {
      // The JSON body is already in request.request (CONTRACT §8.2), as FOSRest's body listener does.
      const data = request.request.all();
      const violations = validateProduct(data);
      if (violations.length > 0) {
        return HttpResponse.json(
          {
            type: 'https://symfony.com/errors/validation',
            title: 'Validation Failed',
            status: 422,
            detail: violations.map((v) => `${v.propertyPath}: ${v.title}`).join('\n'),
            violations,
          },
          422,
          { 'content-type': 'application/problem+json' },
        );
      }
      const product = addProduct(String(data.name), Number(data.price));
      return HttpResponse.json(product, 201, { location: request.generateUrl('api_product_show', { id: product.id }) });
    }),
  },
  {
    name: 'api_product_show',
    path: '/api/products/:id',
    methods: ['GET'],
    requirements: { id: '\\d+' },
    options: { requiresLogin: true, converters: { id: (id) => findProduct(Number(id)) ?? null } },
    controller: named('App\\Controller\\Api\\ProductController::show', (request: KernelRequest) => HttpResponse.json(request.attributes.get('id'))),
  },

  // The back office: its own firewall (own session context, own login); accessControl below asks ROLE_ADMIN.
  {
    name: 'admin_dashboard',
    path: '/admin',
    methods: ['GET'],
    options: { template: 'admin/dashboard' },
    controller: named('App\\Controller\\Admin\\DashboardController::index', (request: KernelRequest) => ({
      member: getMember(request)!.memberId,
      count: products.length,
      logout: logoutUrl(request),
    })),
  },
  loginRoute('admin_login', '/admin/login', '/admin'),
  logoutRoute('admin_logout', '/admin/logout'),
];

/** The validator's NotBlank / Positive constraints. */
function validateProduct(data: Record<string, unknown>): { propertyPath: string; title: string }[] {
  const violations: { propertyPath: string; title: string }[] = [];
  if (typeof data.name !== 'string' || data.name.trim() === '') violations.push({ propertyPath: 'name', title: 'This value should not be blank.' });
  if (typeof data.price !== 'number' || !(data.price > 0)) violations.push({ propertyPath: 'price', title: 'This value should be positive.' });
  return violations;
}

/** security.yaml's firewalls, in order: the first whose pattern matches the path wins. */
export const firewalls: AppOptions['firewalls'] = [
  { name: 'dev', pattern: /^\/(_(profiler|wdt)|css|images|js)\//, security: false },
  { name: 'api', pattern: /^\/api\//, stateless: true },
  // Route names, as security.yaml's login_path / logout.path / logout.target; paths work too.
  { name: 'admin', pattern: /^\/admin(?:\/|$)/, context: 'admin', loginPath: 'admin_login', logoutPath: 'admin_logout', logoutTarget: 'admin_login' },
  { name: 'main', context: 'main', loginPath: 'login', logoutPath: 'logout', logoutTarget: 'home' },
];

/** security.yaml's access_control: the first matching rule decides. */
export const accessControl: AppOptions['accessControl'] = [
  { path: '^/admin/login', roles: 'PUBLIC_ACCESS' },
  { path: '^/admin', roles: 'ROLE_ADMIN' },
];

export function createShopApp(options: AppOptions = {}) {
  return createApp({
    routes,
    firewalls,
    accessControl,
    enabledLocales: ['en', 'fr'],
    verifyBearerToken: (token) => (Object.hasOwn(API_TOKENS, token) ? API_TOKENS[token]! : null),
    // The user provider's refreshUser: a deleted user is logged out on their next request.
    refreshMember: (member) => (Object.hasOwn(USERS, member.memberId) ? { memberId: member.memberId, roles: USERS[member.memberId]!.roles } : null),
    renderTemplate: (name, data, request) => render(name, { ...data, locale: request.getLocale() }),
    listeners: [
      {
        hook: 'kernel.exception',
        listener: {
          id: 'App\\EventListener\\OutOfStockListener::onKernelException',
          role: 'out of stock',
          call(event) {
            if (!(event.throwable instanceof OutOfStockError)) return;
            const { product } = event.throwable;
            event.setResponse(HttpResponse.html(render('error/out-of-stock', { product }), 409));
          },
        },
      },
      {
        hook: 'kernel.response',
        listener: {
          id: 'App\\EventListener\\ShopHeaderListener::onKernelResponse',
          role: 'shop header',
          call(event) {
            event.response.headers.set('x-shop', 'irms-shop/1.0');
          },
        },
      },
    ],
    ...options,
  });
}
