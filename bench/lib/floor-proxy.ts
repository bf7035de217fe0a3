import { fileURLToPath } from 'node:url';
import { freePort } from '@animal-store/testkit';
import { startBenchProcess, type Service } from './services.js';

const MAIN = fileURLToPath(new URL('../floor-proxy/main.ts', import.meta.url));

/** The floor proxy (`floor-proxy/main.ts`) in front of `upstreamUrl`, as its own process on a free loopback port. */
export async function startFloorProxy(upstreamUrl: string): Promise<Service> {
  const port = await freePort();
  return startBenchProcess('floor proxy (node:http + undici, nothing else)', { entry: MAIN, env: { UPSTREAM_URL: upstreamUrl } }, port);
}
