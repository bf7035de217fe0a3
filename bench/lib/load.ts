import autocannon from 'autocannon';

/** The settings every throughput scenario uses; printed with the results. */
export const LOAD_SETTINGS = { connections: 50, pipelining: 1, durationSeconds: 3, warmupSeconds: 2 } as const;
export const QUICK_SETTINGS = { connections: 10, pipelining: 1, durationSeconds: 1, warmupSeconds: 0.5 } as const;
export type LoadSettings = { connections: number; pipelining: number; durationSeconds: number; warmupSeconds: number };

export interface LoadResult {
  readonly requests: number;
  readonly rps: number;
  /** Latency percentiles in ms over every answer (any status), at autocannon's timer resolution. */
  readonly p50: number;
  readonly p99: number;
  /** Answers by status code, for correctness checks. */
  readonly statuses: Record<string, number>;
  readonly errors: number;
  readonly timeouts: number;
  readonly raw: unknown;
}

export interface LoadOptions {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /** Per request: the Authorization header to send (cycling through many keys, say). */
  readonly authorization?: () => string;
  readonly settings: LoadSettings;
  readonly duration?: number;
  /** Stop after this many requests instead of after a duration. */
  readonly amount?: number;
  /** A fixed overall request rate (latency scenarios). */
  readonly overallRate?: number;
  /** Overrides `settings.connections` (the fixed-rate scenarios use one). */
  readonly connections?: number;
  /** Ends the run early, when aborted, with what it measured so far. */
  readonly stop?: AbortSignal;
}

/** The `fraction` quantile of ascending `sorted` (nearest rank); 0 when empty. */
export function quantile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] as number;
}

/** Runs autocannon once and condenses its result. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const headers = { ...options.headers };
  const request: autocannon.Request = { method: options.method ?? 'GET', headers, ...(options.body === undefined ? {} : { body: options.body }) };
  const authorization = options.authorization;
  if (authorization !== undefined) {
    request.setupRequest = (req) => ({ ...req, headers: { ...req.headers, authorization: authorization() } });
  }
  // autocannon's own histogram keeps whole milliseconds and 2xx answers only; a gateway adds
  // fractions of a millisecond, and a 429 is an answer too. So every answer's time is kept here.
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections ?? options.settings.connections,
        pipelining: options.settings.pipelining,
        ...(options.amount === undefined ? { duration: options.duration ?? options.settings.durationSeconds } : { amount: options.amount }),
        ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
        requests: [request],
      },
      (error: unknown, finished: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(finished)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
    if (options.stop?.aborted === true) instance.stop();
    else options.stop?.addEventListener('abort', () => instance.stop(), { once: true });
  });
  latencies.sort((a, b) => a - b);
  const statusStats = (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  return {
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    statuses: Object.fromEntries(Object.entries(statusStats).map(([code, { count }]) => [code, count])),
    errors: result.errors,
    timeouts: result.timeouts,
    raw: result,
  };
}
