import he from 'he';
import type { KernelRequest } from '../../http/request.ts';
import { HttpResponse } from '../../http/response.ts';
import type { RouteDefinition } from '../../routing/route.ts';

/**
 * The profiler's routes (CONTRACT §6.4), GET only. Their names, paths and methods are final; the pages
 * they answer are filled in by the profiler.
 */
export function profilerRoutes(): RouteDefinition[] {
  const page = (title: string) =>
    function profilerPage(request: KernelRequest): HttpResponse {
      const token = request.attributes.getString('token');
      return HttpResponse.html(`<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8" /><title>${he.escape(title)}</title></head><body><h1>${he.escape(title)}</h1>${token ? `<p>Token ${he.escape(token)}</p>` : ''}</body></html>`);
    };
  return [
    { name: '_wdt', path: '/_wdt/:token', methods: ['GET'], controller: page('Toolbar') },
    { name: '_profiler_home', path: '/_profiler/', methods: ['GET'], controller: page('Profiler') },
    { name: '_profiler_search', path: '/_profiler/search', methods: ['GET'], controller: page('Search') },
    { name: '_profiler_search_results', path: '/_profiler/:token/search/results', methods: ['GET'], controller: page('Search results') },
    { name: '_profiler_router', path: '/_profiler/:token/router', methods: ['GET'], controller: page('Routing') },
    { name: '_profiler_exception', path: '/_profiler/:token/exception', methods: ['GET'], controller: page('Exception') },
    { name: '_profiler', path: '/_profiler/:token', methods: ['GET'], controller: page('Profile') },
  ];
}
