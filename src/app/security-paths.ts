import type { Router } from '../routing/router.ts';
import type { FirewallMap } from '../security/firewall-map.ts';
import { namesRoute } from '../security/entry-point.ts';
import { nearestName } from './near-names.ts';

/**
 * The firewalls' login and logout settings that name a route (Symfony's `login_path: app_login`) must
 * name one of the app's routes. A typo (`app_logn`) was left as written: the login redirect went to
 * `Location: app_logn`, which a browser resolves next to the page asked for (`/account/app_logn`, a
 * 404), and a `logoutPath` no route has never logged anyone out. Symfony fails on such a name too
 * (RouteNotFoundException), but only when a request needs it; here the app is not built.
 */
export function checkSecurityRouteNames(firewallMap: FirewallMap, loginPath: string, router: Router): void {
  const check = (where: string, value: string | null, isRouteName: (value: string) => boolean) => {
    if (value === null || !isRouteName(value) || router.get(value) !== undefined) return;
    const known = router.routes.map((route) => route.name);
    const meant = nearestName(value, known);
    throw new Error(`${where} ${JSON.stringify(value)} is no path, no URL and no route's name${meant !== null ? ` (did you mean "${meant}"?)` : ''}. Give a path (/login), a URL or the name of a route.`);
  };
  check('LOGIN_PATH', loginPath, namesRoute);
  for (const firewall of firewallMap.firewalls) {
    const where = `Firewall "${firewall.name}":`;
    check(`${where} loginPath`, firewall.loginPath, namesRoute);
    check(`${where} logoutTarget`, firewall.logoutTarget, namesRoute);
    // The logout is requested at this path, or, when it is no path, on the route of this name (a URL is neither).
    check(`${where} logoutPath`, firewall.logoutPath, (value) => value[0] !== '/');
  }
}
