import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService, type ServiceProcess } from '@animal-store/testkit';

export { createTestKeyring, startGateway } from '@animal-store/gateway/testing';

/** The pets core as a real process on a free port. */
export function startCore(): Promise<ServiceProcess> {
  return startService({ service: 'core', env: { PORT: '0' } });
}

/** The gateway as a real process on a free port, in front of `upstreamUrl`. */
export function startGatewayProcess(upstreamUrl: string, env: Record<string, string>): Promise<ServiceProcess> {
  return startService({ service: 'gateway', env: { PORT: '0', UPSTREAM_URL: upstreamUrl, ...env } });
}

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

export interface SlowFirstCreate {
  readonly url: string;
  readonly seen: SeenRequest[];
  /** Resolves once the held-back first create has reached the core and been answered there. */
  readonly firstCreateDone: Promise<void>;
  close(): Promise<void>;
}

/**
 * A proxy between the gateway and the core that holds the first `POST /v1/pets` back for
 * `holdMs` before forwarding it, so the gateway (whose UPSTREAM_TIMEOUT_MS is shorter) answers
 * 504 while the core still creates the pet later. Everything else goes straight through.
 */
export async function startSlowFirstCreate(coreUrl: string, holdMs: number): Promise<SlowFirstCreate> {
  const core = new URL(coreUrl);
  const seen: SeenRequest[] = [];
  let held = false;
  let done: () => void = () => {};
  const firstCreateDone = new Promise<void>((resolve) => (done = resolve));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const first = req.method === 'POST' && req.url === '/v1/pets' && !held;
      if (first) held = true;
      const forward = () => {
        const upstream = request({ host: core.hostname, port: core.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            if (first) done();
            // The gateway may have given up on this one: then the answer goes nowhere.
            if (!res.destroyed) {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(body));
            }
          });
        });
        upstream.on('error', () => res.destroy());
        upstream.end(Buffer.concat(chunks));
      };
      if (first) setTimeout(forward, holdMs);
      else forward();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    firstCreateDone,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
