import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { startService, type ServiceProcess } from '@animal-store/testkit';

/** A log line of the gateway's processes, parsed. */
export type LogRecord = Record<string, unknown> & { readonly msg?: string; readonly pid?: number; readonly worker?: number };

/** A gateway started as production starts it (its built `npm start`): a primary and its workers. */
export interface GatewayProcess extends ServiceProcess {
  /** The workers' pids, as the `gateway listening` line names them. */
  readonly workerPids: readonly number[];
  /** Every JSON line written so far, parsed. */
  records(): LogRecord[];
  /**
   * Resolves with the first line `match` accepts, polling the output (rejects after `timeoutMs`);
   * with `from`, among the lines after the first `from` (`records().length` before an action).
   */
  waitForRecord(match: (record: LogRecord) => boolean, timeoutMs?: number, from?: number): Promise<LogRecord>;
}

/** Starts the built gateway with `WORKERS=2` on a free port unless `env` says otherwise; ready once it says it listens. */
export async function startGatewayProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<GatewayProcess> {
  const service = await startService({ service: 'gateway', env: { PORT: '0', WORKERS: '2', ...env }, timeoutMs });
  const records = () =>
    service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.endsWith('}'))
      .map((line) => JSON.parse(line) as LogRecord);
  const listening = records().find((record) => record.msg === 'gateway listening');
  return {
    ...service,
    workerPids: (listening?.pids as number[] | undefined) ?? [],
    records,
    async waitForRecord(match, waitMs = 15_000, from = 0) {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const found = records().slice(from).find(match);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`no such log line within ${waitMs} ms:\n${service.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** An answer read whole. */
export interface FreshAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * One request on a connection of its own (no agent, `Connection: close`): with node:cluster's
 * round robin, consecutive connections go to the workers in turn.
 */
export function requestOnFreshConnection(
  url: string,
  options: { readonly headers?: Record<string, string>; readonly method?: string; readonly ca?: string; readonly timeoutMs?: number } = {},
): Promise<FreshAnswer> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        headers: { connection: 'close', ...options.headers },
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in time`)));
    req.on('error', reject);
    req.end();
  });
}

/** Whether a process of that pid still runs. */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The pid of the process that serves: the one worker of a gateway started with `WORKERS=1` (the
 * tests' default), whose descriptors, sockets, memory and CPU are what the request path costs;
 * the pid itself for a process without workers (the core). A worker is a child running the same
 * entry (node:cluster forks `process.argv[1]`), which tells it from the TypeScript loader's
 * esbuild child.
 */
export function servingPid(pid: number): number {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  // The entry, run from the sources (`main.ts`) or built (`main.js`, which the primary may name
  // relative to its folder and node:cluster gives the workers resolved).
  const runsEntry = (of: number) =>
    read(`/proc/${of}/cmdline`)
      .split('\0')
      .some((arg) => /(?:^|\/)main\.[jt]s$/.test(arg));
  const children = read(`/proc/${pid}/task/${pid}/children`).split(' ').filter(Boolean).map(Number);
  const workers = runsEntry(pid) ? children.filter(runsEntry) : [];
  if (workers.length > 1) throw new Error(`pid ${pid} runs ${workers.length} workers: which one serves is the round robin's choice`);
  // The core, or a gateway whose children are not (yet) known: the process itself.
  return workers[0] ?? pid;
}
