import { execFile, spawnSync } from 'node:child_process';
import type { KeyRotation } from './key-files.js';
import type { LoadResult } from './load.js';

/**
 * wrk, a second load generator beside autocannon. autocannon takes most of a core here, so on two
 * shared cores it blurs every ratio; wrk (C, one thread) sends the same load for a fraction of
 * that. Each throughput scenario is measured with both, and the report sets them side by side.
 */

/** Why wrk cannot run here, or `false` when it can. */
export function wrkSkipReason(): string | false {
  // wrk has no --version: `wrk -v` prints its version and usage, and exits 1.
  return spawnSync('wrk', ['-v']).error === undefined ? false : 'wrk is not installed (apt-get install wrk)';
}

export interface WrkOptions {
  readonly url: string;
  readonly headers?: Record<string, string>;
  /** A key per request from a spread of accounts (`key-files.ts`): its Lua script sets the Authorization header. */
  readonly keys?: Pick<KeyRotation, 'scriptFile' | 'keysFile' | 'orderFile'>;
  readonly connections: number;
  /** Whole seconds: wrk reads `-d` as an integer. */
  readonly seconds: number;
  /** Ends the run early, when aborted: wrk stops on SIGINT and reports what it measured so far. */
  readonly stop?: AbortSignal;
}

/** A wrk duration such as `472.00us`, `0.87ms`, `1.02s` or `1.00m`, in milliseconds. */
export function wrkMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  if (match === null) throw new Error(`not a wrk duration: ${text}`);
  const value = Number(match[1]);
  // Microseconds divided rather than multiplied by 0.001, which is not exact in binary.
  return match[2] === 'us' ? value / 1000 : value * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
}

/**
 * wrk's report (with `--latency`) as a LoadResult. wrk counts answers outside 2xx and 3xx without
 * telling their statuses: those are `other`, the rest `2xx/3xx` (the report checks them as a class).
 */
export function parseWrk(output: string): LoadResult {
  const number = (pattern: RegExp): number | undefined => {
    const match = pattern.exec(output);
    return match === null ? undefined : Number(match[1]);
  };
  const requests = number(/^\s*(\d+) requests in /m);
  const rps = number(/^Requests\/sec:\s+([\d.]+)/m);
  const distribution = output.slice(Math.max(0, output.indexOf('Latency Distribution')));
  // wrk pads each value to a width: `     99%    1.05s ` ends in a space.
  const percentile = (p: number) => new RegExp(`^\\s+${p}%\\s+(\\S+)[ \\t]*$`, 'm').exec(distribution)?.[1];
  const p50 = percentile(50);
  const p99 = percentile(99);
  if (requests === undefined || rps === undefined || p50 === undefined || p99 === undefined) throw new Error(`unreadable wrk output:\n${output}`);
  const other = number(/^\s*Non-2xx or 3xx responses:\s+(\d+)/m) ?? 0;
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const [connect, read, write, timeout] = socket === null ? [0, 0, 0, 0] : socket.slice(1).map(Number);
  return {
    requests,
    rps,
    p50: wrkMs(p50),
    p99: wrkMs(p99),
    statuses: other === 0 ? { '2xx/3xx': requests - other } : { '2xx/3xx': requests - other, other },
    errors: (connect ?? 0) + (read ?? 0) + (write ?? 0),
    timeouts: timeout ?? 0,
    raw: output,
  };
}

/** wrk's arguments: `-t1 -c<connections> -d<seconds> --latency`, the headers, and the rotation's script and files. */
export function wrkArgs(options: WrkOptions): string[] {
  const headers = Object.entries(options.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const keys = options.keys;
  const script = keys === undefined ? [] : ['-s', keys.scriptFile];
  const scriptArgs = keys === undefined ? [] : ['--', keys.keysFile, keys.orderFile];
  return ['-t1', `-c${options.connections}`, `-d${Math.max(1, Math.round(options.seconds))}s`, '--latency', ...headers, ...script, options.url, ...scriptArgs];
}

/** Runs wrk (`wrkArgs`) and parses its report. */
export function runWrk(options: WrkOptions): Promise<LoadResult> {
  const args = wrkArgs(options);
  return new Promise((resolve, reject) => {
    const child = execFile('wrk', args, { timeout: (options.seconds + 30) * 1000 }, (error, stdout, stderr) => {
      options.stop?.removeEventListener('abort', interrupt);
      if (error !== null) return reject(new Error(`wrk ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
      try {
        resolve(parseWrk(stdout));
      } catch (parseError) {
        reject(parseError instanceof Error ? parseError : new Error(String(parseError)));
      }
    });
    const interrupt = () => child.kill('SIGINT');
    if (options.stop?.aborted === true) interrupt();
    else options.stop?.addEventListener('abort', interrupt, { once: true });
  });
}
