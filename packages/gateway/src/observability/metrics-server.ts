import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';

/** Where the admin listener listens (`METRICS_HOST`, `METRICS_PORT`, parsed in `config/`). */
export interface MetricsOptions {
  readonly host: string;
  readonly port: number;
}

/** Answers the admin listener's requests under `/admin` (the admin API and console); false for any other path. */
export type AdminPaths = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/** Asked first for every request: true when it answered it itself (a `Host` the listener does not answer to). */
export type ListenerGuard = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The admin listener: `GET /metrics` in Prometheus's text format, and with `admin` (an admin token
 * file is set) the admin API and console under `/admin`. It listens on METRICS_HOST:METRICS_PORT
 * (loopback by default), never on the public port. `registry` is a prom-client registry, or what
 * sums the workers' (the primary's); `guard` answers first (the admin's check of `Host`).
 */
export function createMetricsServer(registry: Pick<Registry, 'metrics' | 'contentType'>, admin?: AdminPaths, guard?: ListenerGuard): Server {
  return createServer((req, res) => {
    if (guard?.(req, res) === true) return;
    const path = (req.url ?? '/').split('?')[0] as string;
    if (admin?.(req, res, path) === true) return;
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at /metrics.\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(text) });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics could not be collected: ${String(error)}\n`);
      },
    );
  });
}
