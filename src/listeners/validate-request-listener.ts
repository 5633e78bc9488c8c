import type { RequestEvent } from '../kernel/events.ts';
import { listener } from '../kernel/hooks.ts';

/**
 * Symfony's ValidateRequestListener, main request only:
 * - behind a trusted proxy, the client-IP chain is computed, so a `Forwarded` header disagreeing with
 *   `X-Forwarded-For` (or `-Host`) is a ConflictingHeadersException → 400 with Symfony's message;
 * - the Host is validated: illegal characters → `Invalid Host "<host>".`, a host outside TRUSTED_HOSTS
 *   → `Untrusted Host "<host>".` (both 400; the kernel turns request errors into BadRequestHttpException).
 * Without trusted proxies nothing forwarded is read at all (the request model ignores those headers).
 *
 * Also (irms-web, CONTRACT §8.2, what a web server's body limit does before PHP runs): a declared
 * Content-Length over BODY_LIMIT is a 413 here, before routing, whether or not anything would read the
 * body. A chunked body is held to the limit when it is read.
 */
export class ValidateRequestListener {
  readonly onKernelRequest = listener<'kernel.request'>('ValidateRequestListener::onKernelRequest', 'request validation', (event: RequestEvent) => {
    const request = event.request;
    if (!request.isMainRequest) return;
    if (request.isFromTrustedProxy) request.getClientIps();
    request.getHost();
    request.refuseOversizedBody();
  });
}
