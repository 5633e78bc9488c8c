// A keep-alive HTTP client for load tests: many concurrent GETs over a bounded pool of sockets.
import http from 'node:http';

export interface KeepAliveClient {
  /** GET `path`; resolves to the status and the whole body as text. */
  get(path: string): Promise<{ status: number; body: string }>;
  close(): void;
}

export function keepAliveClient(port: number, maxSockets = 50): KeepAliveClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return {
    get: (path) =>
      new Promise((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path, agent }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          })
          .on('error', reject);
      }),
    close: () => agent.destroy(),
  };
}
