/**
 * What a route that lists no methods serves: Symfony's methods without TRACE and CONNECT (CONTRACT §8.6).
 * TRACE, CONNECT and any other method reach only a route that lists it; elsewhere they get a 405 whose
 * `Allow` names these (or the methods the path's routes list). The Node adapter answers CONNECT itself
 * with the same `Allow`. A module of its own so that the adapters can share it without the router.
 */
export const DEFAULT_METHODS: readonly string[] = Object.freeze(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PURGE']);
