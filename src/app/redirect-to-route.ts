import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';

/**
 * AbstractController::redirectToRoute: a redirect (302 unless told otherwise) to a named route's URL,
 * generated as `request.generateUrl` generates it (a path, as Symfony's default ABSOLUTE_PATH).
 */
export function redirectToRoute(request: KernelRequest, route: string, parameters: Record<string, unknown> = {}, status = 302): HttpResponse {
  return HttpResponse.redirect(request.generateUrl(route, parameters), status);
}
