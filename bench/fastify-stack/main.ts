// The Fastify stack reference: what the gateway's job looks like built from common Fastify parts.
// Fastify 5, @fastify/http-proxy to the core, @fastify/rate-limit on its Redis store (ioredis), and
// jose verifying the Bearer key on every request, without a cache. Run by bench/lib/fastify-stack.ts
// as its own process: `node --import tsx bench/fastify-stack/main.ts`, configured by environment.
import { readFileSync } from 'node:fs';
import proxy from '@fastify/http-proxy';
import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { API_KEY_TYP } from '@animal-store/gateway';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};
const keys = createLocalJWKSet(JSON.parse(readFileSync(env('JWKS_FILE'), 'utf8')) as JSONWebKeySet);
const redis = new Redis(env('REDIS_URL'));
const verifyOptions = {
  algorithms: ['EdDSA'],
  issuer: env('KEY_ISSUER'),
  audience: env('KEY_AUDIENCE'),
  typ: API_KEY_TYP,
  requiredClaims: ['iss', 'aud', 'sub', 'jti', 'iat', 'plan'],
};

/** One access line per request ("request completed"), as the gateway writes, not Fastify's two. */
class AccessLog extends LogController {
  override incomingRequest(): void {}
}
const app = Fastify({ logger: { level: 'info' }, logController: new AccessLog() });

declare module 'fastify' {
  interface FastifyRequest {
    subject: string;
  }
}
app.decorateRequest('subject', '');

/** The same checks as the gateway's key verifier: signature, alg, typ, iss, aud, claims present. */
async function verifyKey(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Bearer ')) return reply.code(401).send({ error: 'missing key' });
  try {
    const { payload } = await jwtVerify(header.slice(7), keys, verifyOptions);
    request.subject = payload.sub as string;
  } catch {
    return reply.code(401).send({ error: 'invalid key' });
  }
}

app.get('/healthz', async () => ({ status: 'ok' }));
await app.register(async (api) => {
  api.addHook('onRequest', verifyKey);
  // preHandler: counted after the key is verified, per account, like the gateway's limits.
  await api.register(rateLimit, {
    hook: 'preHandler',
    max: Number(env('LIMIT_PER_MINUTE')),
    timeWindow: 60_000,
    redis,
    keyGenerator: (request) => request.subject,
  });
  await api.register(proxy, { upstream: env('UPSTREAM_URL'), prefix: '/v1', rewritePrefix: '/v1' });
});

await app.listen({ host: env('HOST'), port: Number(env('PORT')) });
const stop = () =>
  void app
    .close()
    .then(() => redis.quit())
    .finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
