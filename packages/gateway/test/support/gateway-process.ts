import { fileURLToPath } from 'node:url';
import { freePort, startService, type ServiceProcess } from '@animal-store/testkit';
import { waitUntilReady } from './start-gateway.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/** One line of a gateway's access log, as the tests read it (pino adds the writer's `pid`). */
export interface AccessLine {
  readonly pid: number;
  readonly subject?: string;
  readonly status: number;
  readonly decision?: string;
}

/** The gateway as production runs it (`src/main.ts`, its workers), with its log kept for the test. */
export interface GatewayProcess {
  readonly url: string;
  readonly service: ServiceProcess;
  /**
   * The access-log lines of `subject`'s requests, once `count` of them were written (the log is
   * written in blocks, up to 100 ms late); throws after 30 s with what was found.
   */
  accessLines(subject: string, count: number): Promise<AccessLine[]>;
  stop(): Promise<void>;
}

/**
 * Starts `src/main.ts` on a free loopback port with `env` (and `LOG_LEVEL=info`, for the access
 * log), and resolves once `/readyz` answers 200.
 */
export async function startGatewayProcess(env: Readonly<Record<string, string>>): Promise<GatewayProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const service = await startService({ entry: MAIN, env: { HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env }, timeoutMs: 30_000 });
  try {
    await waitUntilReady(url, 30_000);
  } catch (error) {
    await service.stop('SIGKILL');
    throw error;
  }
  let parsed = 0;
  const lines: AccessLine[] = [];
  return {
    url,
    service,
    async accessLines(subject, count) {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const output = service.output();
        const end = output.lastIndexOf('\n') + 1;
        for (const line of output.slice(parsed, end).split('\n')) {
          if (!line.startsWith('{') || !line.includes('"status"')) continue;
          const record = JSON.parse(line) as AccessLine;
          if (typeof record.status === 'number') lines.push(record);
        }
        parsed = end;
        const found = lines.filter((line) => line.subject === subject);
        if (found.length >= count) return found;
        if (Date.now() > deadline) throw new Error(`${found.length} access-log lines of ${subject}, ${count} expected`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: async () => {
      await service.stop('SIGTERM', 10_000);
    },
  };
}

/** The answers of `lines` by status and by the worker (pid) that wrote them. */
export function byWorker(lines: readonly AccessLine[]): Map<number, Record<number, number>> {
  const workers = new Map<number, Record<number, number>>();
  for (const line of lines) {
    let counts = workers.get(line.pid);
    if (counts === undefined) workers.set(line.pid, (counts = {}));
    counts[line.status] = (counts[line.status] ?? 0) + 1;
  }
  return workers;
}
