import { fileURLToPath } from 'node:url';
import { freePort } from '@animal-store/testkit';
import { startBenchProcess, type Service } from './services.js';

const MAIN = fileURLToPath(new URL('../fastify-stack/main.ts', import.meta.url));

export interface FastifyStackOptions {
  readonly upstreamUrl: string;
  readonly redisUrl: string;
  /** The public keys of the gateway's API keys: the stack verifies the same keys (EdDSA). */
  readonly jwksFile: string;
  readonly issuer: string;
  readonly audience: string;
  /** Requests a minute per account: high enough never to refuse (the check is measured). */
  readonly limitPerMinute: number;
}

/**
 * The Fastify stack (`fastify-stack/main.ts`) as its own process on a free loopback port, one
 * process like the gateway, logging to /dev/null like it.
 */
export async function startFastifyStack(options: FastifyStackOptions): Promise<Service> {
  const port = await freePort();
  return startBenchProcess(
    'fastify stack',
    {
      entry: MAIN,
      env: {
        UPSTREAM_URL: options.upstreamUrl,
        REDIS_URL: options.redisUrl,
        JWKS_FILE: options.jwksFile,
        KEY_ISSUER: options.issuer,
        KEY_AUDIENCE: options.audience,
        LIMIT_PER_MINUTE: String(options.limitPerMinute),
      },
    },
    port,
  );
}
