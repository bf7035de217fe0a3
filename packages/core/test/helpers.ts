import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig, type CoreConfig } from '../src/config.js';
import { createCoreServer } from '../src/server.js';
import { createStore, type PetStore } from '../src/store/index.js';

export type StoreKind = 'memory' | 'redis';

export interface RunningCore {
  readonly url: string;
  readonly store: PetStore;
  readonly config: CoreConfig;
  close(): Promise<void>;
}

/** A core server on 127.0.0.1:0 with its own store (a fresh key prefix on a shared Redis). */
export async function startCore(kind: StoreKind, options: { redisUrl?: string; env?: Record<string, string> } = {}): Promise<RunningCore> {
  const env: Record<string, string> = { PORT: '0', PETS_STORE: kind, ...options.env };
  if (kind === 'redis') {
    env.PETS_REDIS_URL = options.redisUrl ?? '';
    env.PETS_REDIS_PREFIX ??= `t${randomUUID().slice(0, 8)}`;
  }
  const result = loadConfig(env);
  if (!result.ok) throw new Error(result.problems.join('; '));
  const store = createStore(result.config);
  if (kind === 'redis') await waitUntil(() => store.ping());
  const server = createCoreServer(result.config, { store, logger: pino({ level: 'silent' }) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    config: result.config,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    },
  };
}

async function waitUntil(probe: () => Promise<unknown>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await probe();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** POSTs `body` (an object is sent as JSON) to `/v1/pets`. */
export function postPet(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Asserts that `res` is the Error body with `status` and `code`, and returns its message. */
export async function assertError(res: Response, status: number, code: string): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${text}`);
  assert.equal(res.headers.get('content-type'), 'application/json');
  const body = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status']);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.equal(typeof body.message, 'string');
  assert.ok((body.message as string).length > 0);
  return body.message as string;
}

/** The path and query of the `rel="next"` link, or undefined on the last page. */
export function nextLink(res: Response): string | undefined {
  const link = res.headers.get('link');
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  assert.ok(match, `malformed Link header: ${link}`);
  return match[1];
}

/** Follows `rel="next"` from `firstPath` and returns every pet id seen, in order. */
export async function walkIds(url: string, firstPath: string): Promise<number[]> {
  const ids: number[] = [];
  let path: string | undefined = firstPath;
  while (path !== undefined) {
    const res: Response = await fetch(`${url}${path}`);
    assert.equal(res.status, 200);
    const pets = (await res.json()) as { id: number }[];
    ids.push(...pets.map((pet) => pet.id));
    path = nextLink(res);
  }
  return ids;
}
