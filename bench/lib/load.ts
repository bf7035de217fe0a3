import autocannon from 'autocannon';

/** The settings every throughput scenario uses; printed with the results. */
export const LOAD_SETTINGS = { connections: 50, pipelining: 1, durationSeconds: 4, warmupSeconds: 2 } as const;
export const QUICK_SETTINGS = { connections: 10, pipelining: 1, durationSeconds: 1, warmupSeconds: 0.5 } as const;
export type LoadSettings = { connections: number; pipelining: number; durationSeconds: number; warmupSeconds: number };

export interface LoadResult {
  readonly requests: number;
  readonly rps: number;
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
}

/** Runs autocannon once and condenses its result. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const headers = { ...options.headers };
  const request: autocannon.Request = { method: options.method ?? 'GET', headers, ...(options.body === undefined ? {} : { body: options.body }) };
  const authorization = options.authorization;
  if (authorization !== undefined) {
    request.setupRequest = (req) => ({ ...req, headers: { ...req.headers, authorization: authorization() } });
  }
  const result = await autocannon({
    url: options.url,
    connections: options.settings.connections,
    pipelining: options.settings.pipelining,
    ...(options.amount === undefined ? { duration: options.duration ?? options.settings.durationSeconds } : { amount: options.amount }),
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
    requests: [request],
  });
  const statusStats = (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  return {
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses: Object.fromEntries(Object.entries(statusStats).map(([code, { count }]) => [code, count])),
    errors: result.errors,
    timeouts: result.timeouts,
    raw: result,
  };
}
