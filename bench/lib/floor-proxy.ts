import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '@animal-store/testkit';
import { serviceOf, type Service } from './services.js';

const MAIN = fileURLToPath(new URL('../floor-proxy/main.ts', import.meta.url));

/** The floor proxy (`floor-proxy/main.ts`) in front of `upstreamUrl`, as its own process on a free loopback port. */
export async function startFloorProxy(upstreamUrl: string): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), UPSTREAM_URL: upstreamUrl },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return serviceOf('floor proxy (node:http + undici, nothing else)', child, `http://127.0.0.1:${port}`);
}
