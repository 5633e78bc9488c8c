import { KernelRequest, type RequestSettings } from '../../src/http/request.ts';
import { IpMatcher } from '../../src/http/ip.ts';
import type { RequestSource } from '../../src/http/source.ts';
import { LogStream } from '../../src/log/logger.ts';

export interface SourceInit {
  method?: string;
  target?: string;
  headers?: Record<string, string>;
  body?: string | ReadableStream<Uint8Array>;
  remoteAddress?: string;
  scheme?: 'http' | 'https';
}

/** A RequestSource built by hand, the way an adapter builds one. */
export function source(init: SourceInit = {}): RequestSource {
  const headers = new Map(Object.entries({ host: 'localhost', ...(init.headers ?? {}) }).map(([k, v]) => [k.toLowerCase(), v]));
  const body = init.body;
  return {
    method: init.method ?? 'GET',
    target: init.target ?? '/',
    scheme: init.scheme ?? 'http',
    fallbackHost: '',
    remoteAddress: init.remoteAddress ?? '127.0.0.1',
    protocol: 'HTTP/1.1',
    header: (n) => headers.get(n) ?? null,
    headers: () => headers.entries(),
    body: () => (body === undefined ? null : typeof body === 'string' ? new Blob([body]).stream() : body),
  };
}

export function settings(overrides: Partial<RequestSettings> = {}, lines: string[] = []): RequestSettings {
  return {
    trustedProxies: new IpMatcher([]),
    trustedHosts: [],
    bodyLimit: 1024 * 1024,
    httpMethodOverride: true,
    defaultLocale: 'en',
    logStream: new LogStream((l) => lines.push(l), 'debug', 'json'),
    debug: true,
    ...overrides,
  };
}

export function kernelRequest(init: SourceInit = {}, overrides: Partial<RequestSettings> = {}): KernelRequest {
  return new KernelRequest(source(init), settings(overrides));
}

/** The little of KernelRequest that renderError reads (error-page tests render without a pipeline). */
export function errorPageRequest(): KernelRequest {
  const attributes = new Map<string, unknown>();
  return {
    prefersJson: () => false,
    logRecords: [],
    logger: { droppedRecords: 0 },
    method: 'GET',
    realMethod: 'GET',
    pathInfo: '/nope',
    attributes: { get: (k: string) => attributes.get(k) },
  } as unknown as KernelRequest;
}
