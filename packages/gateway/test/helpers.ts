import { fileURLToPath } from 'node:url';
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { freePort, temporaryDir, TEST_ENV, type RedisServer } from '@animal-store/testkit';
import { LISTEN_BACKLOG } from '@animal-store/http-kit';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { loadConfig, type GatewayConfig } from '../src/config/index.js';
import { buildGateway } from '../src/build-gateway.js';
import type { Upstream } from '../src/proxy/index.js';

export { freePort, temporaryDir };

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface RecordingUpstream {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Requests whose connection closed before an answer was sent. */
  readonly abandoned: string[];
  close(): Promise<void>;
}

type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/**
 * A deliberately simple upstream that records every request it parses. `/hold` never answers,
 * `/reset` destroys the socket, `/hop` answers with hop-by-hop headers, `/big` streams 4 MiB
 * (`BIG_BODY_BYTES`), `/stall` sends part of a body and goes silent, `/drip` sends a byte every
 * 50 ms for as long as the client listens; anything else echoes.
 */
export async function startRecordingUpstream(behaviours: Record<string, Behaviour> = {}): Promise<RecordingUpstream> {
  const requests: RecordedRequest[] = [];
  const abandoned: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.on('close', () => {
        if (!res.writableFinished) abandoned.push(req.url ?? '');
      });
      const path = (req.url ?? '').split('?')[0] as string;
      const behaviour = behaviours[path] ?? DEFAULT_BEHAVIOURS[path.replace(/^\/v1/, '')] ?? echo;
      behaviour(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    abandoned,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const echo: Behaviour = (req, res, body) => {
  const payload = JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
};

/** The size of `/big`'s answer: bytes `i % 251`, streamed chunked in 64 KiB writes. */
export const BIG_BODY_BYTES = 4 * 1024 * 1024;

const DEFAULT_BEHAVIOURS: Record<string, Behaviour> = {
  '/hold': () => {},
  '/big': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 0).map((_, i) => i % 251);
    let sent = 0;
    const more = () => {
      while (sent < BIG_BODY_BYTES) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  },
  '/drip': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('.'), 50);
    res.on('close', () => clearInterval(timer));
  },
  '/stall': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
    res.write('only part of the body');
  },
  '/reset': (req) => req.socket.destroy(),
  // Switching protocols on a request that asked for no upgrade, and keeping the connection.
  '/switch': (req) => req.socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n'),
  // Three digits Node's client accepts but no server may send.
  '/weird': (req) => req.socket.end('HTTP/1.1 099 Odd\r\ncontent-length: 0\r\n\r\n'),
  '/hop': (_req, res) => {
    res.writeHead(200, {
      connection: 'keep-alive, x-upstream-secret',
      'keep-alive': 'timeout=30',
      'x-upstream-secret': 'internal',
      'proxy-authenticate': 'Basic',
      'x-request-id': 'upstream-made-this',
      'set-cookie': ['a=1', 'b=2'],
      'content-type': 'application/json',
    });
    res.end('{}');
  },
};

/** An OpenAPI document with arbitrary operations under `/v1`, written to a temp file. */
export function writeDocument(paths: Record<string, Record<string, Record<string, unknown>>>): string {
  const file = join(temporaryDir('gw-doc-'), 'openapi.json');
  const doc = {
    openapi: '3.1.0',
    info: { title: 'test', version: '1' },
    servers: [{ url: 'https://{host}/v1', variables: { host: { default: 'example.test' } } }],
    security: [{ bearerAuth: [] }],
    paths,
  };
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** Operations on `/echo`, `/hold`, `/reset`, `/hop`, for proxy tests against a recording upstream. */
export const PROXY_TEST_PATHS = {
  '/echo': {
    get: { operationId: 'echoGet' },
    post: { operationId: 'echoPost' },
    delete: { operationId: 'echoDelete' },
    options: { operationId: 'echoOptions' },
  },
  '/hold': { get: { operationId: 'hold' } },
  '/reset': { get: { operationId: 'reset' } },
  '/weird': { get: { operationId: 'weird' } },
  '/switch': { get: { operationId: 'switch' } },
  '/hop': { get: { operationId: 'hop' } },
  '/big': { get: { operationId: 'big' } },
  '/stall': { get: { operationId: 'stall' } },
  '/drip': { get: { operationId: 'drip' } },
};

export interface RunningGateway {
  readonly url: string;
  readonly port: number;
  readonly config: GatewayConfig;
  readonly upstream: Upstream;
  /** The admin listener's `/metrics`, when METRICS_PORT is set (it listens on a port of its own). */
  readonly metricsUrl: string | undefined;
  close(): Promise<void>;
}

/** The gateway in this process on 127.0.0.1:0, configured from `env` like the real process. */
export async function startGateway(
  env: Record<string, string>,
  now?: () => number,
  redisNow?: () => number,
  options: { readonly waitForRedis?: boolean; readonly logger?: Logger } = {},
): Promise<RunningGateway> {
  // Proxy and routing tests run without keys and limits unless they configure them.
  const auth = env.JWKS_FILE ?? env.JWKS_URL ?? env.JWKS ?? env.AUTH;
  const defaults = {
    ...(auth === undefined ? { AUTH: 'off' } : {}),
    ...(env.RATE_LIMITS === undefined && env.PLANS_FILE === undefined ? { RATE_LIMITS: 'off' } : {}),
  };
  const result = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...defaults, ...env });
  if (!result.ok) throw new Error(result.problems.join('; '));
  const { config } = result;
  // GATEWAY_TEST_LOG=debug shows the gateway's log lines while debugging a test.
  const built = buildGateway(config, {
    logger: options.logger ?? pino({ level: process.env.GATEWAY_TEST_LOG ?? 'silent' }),
    ...(now === undefined ? {} : { now }),
    ...(redisNow === undefined ? {} : { redisNow }),
  });
  const { server, upstream, redis } = built;
  // The client connects in the background; tests start once it has (what /readyz waits for in production).
  const connectBy = Date.now() + 10_000;
  while (
    redis !== undefined &&
    options.waitForRedis !== false &&
    !(await redis.ping().then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > connectBy) throw new Error('the gateway could not connect to Redis');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // As serve() listens in production.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG }, resolve));
  const { port } = server.address() as AddressInfo;
  const { metricsServer } = built;
  if (metricsServer !== undefined) await new Promise<void>((resolve) => metricsServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `${config.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    port,
    config,
    upstream,
    metricsUrl: metricsServer === undefined ? undefined : `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await built.close();
    },
  };
}

/** Polls /readyz until it answers 200 (Redis connected, upstream reachable), as an orchestrator would. */
export async function waitUntilReady(url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await fetch(`${url}/readyz`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Writes `raw` bytes to 127.0.0.1:`port` and resolves with everything read until `done` says so or the socket ends. */
export function rawExchange(port: number, raw: string, done: (text: string) => boolean = () => false, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(text);
    }, timeoutMs);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (done(text)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('end', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', reject);
  });
}

const KEYS_CLI = fileURLToPath(new URL('../src/cli/keys.ts', import.meta.url));

/**
 * Runs `npm run keys -- …` as an operator would, in its own process. Asynchronously: the gateways
 * under test live in this process and must keep serving meanwhile.
 */
export function keysCli(env: Record<string, string>, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', KEYS_CLI, ...args],
      { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout: stdout.trim(), stderr });
      },
    );
  });
}

/**
 * Runs `keys revoke <jti>` and SIGKILLs Redis the moment the CLI process exits, as the attack run
 * did. Resolves with the CLI's exit code and how long after its exit the kill signal was sent
 * (the time to the `kill` call; the kernel delivers it at once).
 */
export function revokeThenKill(
  env: Record<string, string>,
  jti: string,
  redis: RedisServer,
): Promise<{ status: number | null; killedAfterMs: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', KEYS_CLI, 'revoke', jti], {
      env: { PATH: TEST_ENV.path, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (status) => {
      const exited = performance.now();
      const pid = redis.pid as number;
      const killedAfterMs = performance.now() - exited;
      process.kill(pid, 'SIGKILL');
      resolve({ status, killedAfterMs, stderr });
    });
  });
}

/** A pino logger at `level` whose lines are kept in memory: `text()` is everything written so far. */
export function capturedLog(level = 'info'): { readonly logger: Logger; text(): string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { logger: pino({ level }, sink), text: () => text };
}
