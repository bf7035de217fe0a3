import {
  freePort,
  REPOSITORY_ROOT,
  serviceCommand,
  startService as startProcess,
  waitForReady,
  type ServiceKind,
  type StartServiceOptions,
} from '@animal-store/testkit';

/** This checkout's root: the services run from here unless told another (`bench:compare`'s worktree). */
export { REPOSITORY_ROOT };

export interface Service {
  readonly name: string;
  readonly url: string;
  /** Its process id, for CPU accounting (`lib/cpu.ts`). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the core or a gateway as its own process on a free loopback port, with `env`, and waits
 * for /healthz, and for a gateway for /readyz too (with several workers, /healthz may answer before
 * every worker is up). Logs go to /dev/null: a real deployment writes them somewhere, and pino's cost
 * of writing them is part of what is measured. `root` is the checkout whose code runs (this one by
 * default), with its own dependencies, and run as that checkout runs it in production
 * (`serviceCommand`: its built JavaScript, or through tsx before it had a build).
 *
 * A gateway gets `WORKERS=1` unless `env` says otherwise: every scenario is one gateway process (or
 * one worker and its primary) unless it is about workers, whatever the default of `WORKERS` is; a
 * checkout from before `WORKERS` ignores it and runs its one process (`bench:compare`).
 */
export async function startService(name: string, kind: ServiceKind, env: Record<string, string>, root = REPOSITORY_ROOT): Promise<Service> {
  const { command, cwd } = serviceCommand(root, kind);
  // A gateway given a certificate serves HTTPS only (docs/operating.md#tls).
  const protocol = kind === 'gateway' && env.TLS_CERT_FILE !== undefined ? 'https' : 'http';
  const service = await startBenchProcess(name, { command, cwd, env: kind === 'gateway' ? { WORKERS: '1', ...env } : env }, await freePort(), protocol);
  if (kind === 'gateway') await waitUntilReady(service);
  return service;
}

/** Waits for `/readyz` to answer 200; throws (stopping the service) after 30 s. */
async function waitUntilReady(service: Service): Promise<void> {
  try {
    await waitForReady(service.url, 30_000);
  } catch (error) {
    await service.stop();
    throw new Error(`${service.name}: ${(error as Error).message}`);
  }
}

/**
 * Starts a process of the bench (a service, a reference proxy) with testkit's starter, given
 * `HOST` and `PORT` on loopback, and resolves once its /healthz answers (rejects if it exits
 * first or takes over 30 s). Its stderr shows as it comes; `stop` sends SIGTERM and waits. One
 * that serves `https` is asked over TLS, its certificate trusted (`trustedCertificate`).
 */
export async function startBenchProcess(
  name: string,
  options: Omit<StartServiceOptions, 'healthzAt'>,
  port: number,
  protocol: 'http' | 'https' = 'http',
): Promise<Service> {
  const url = `${protocol}://127.0.0.1:${port}`;
  const started = await startProcess({
    ...options,
    env: { HOST: '127.0.0.1', PORT: String(port), ...options.env },
    group: false,
    healthzAt: url,
    stderr: 'inherit',
    timeoutMs: 30_000,
  }).catch((error: Error) => {
    throw new Error(`${name}: ${error.message}`);
  });
  // A service that dies mid-run makes every later scenario against it fail: say who, and how.
  let stopping = false;
  started.child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`bench: ${name} (pid ${started.pid}) exited during the run: ${signal ?? `code ${code}`}\n`);
  });
  return {
    name,
    url,
    pid: started.pid,
    async stop() {
      stopping = true;
      await started.stop('SIGTERM');
    },
  };
}

/** The pets core, with 20 pets in its store: `GET /v1/pets` answers a full first page. */
export async function startSeededCore(): Promise<Service> {
  const core = await startService('core', 'core', { LOG_LEVEL: 'info' });
  for (let i = 0; i < 20; i++) {
    await fetch(`${core.url}/v1/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `pet-${i}`, categoryId: 1 + (i % 4), status: 'available' }),
    });
  }
  return core;
}
