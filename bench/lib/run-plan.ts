import type { CpuPerRequest } from './cpu.js';
import type { LoadResult } from './load.js';
import type { Measurement } from './measurements.js';
import { statsDelta, type RedisStats } from './script-calls.js';
import type { BenchContext } from './scenario.js';
import type { Service } from './services.js';
import { runWrk } from './wrk.js';
import { PLAN, roundOrder, type PlanEntry } from '../scenarios/plan.js';

export interface PlanOptions {
  readonly rounds: number;
  readonly context: BenchContext;
  /** Runs one load and the CPU each part used per request (`cpuMeter`). */
  readonly measure: (proxy: Service | undefined, load: () => Promise<LoadResult>) => Promise<{ result: LoadResult; cpu: CpuPerRequest }>;
  /** Whether wrk runs beside autocannon on the throughput scenarios. */
  readonly wrk: boolean;
  /** Redis's counters so far (`scriptCallCounter`): read around each run of a scenario that uses Redis. */
  readonly redisStats?: () => Promise<RedisStats>;
  /** What this machine has: a scenario that needs what is missing is left out. */
  readonly available: { readonly redis: boolean; readonly nginx: boolean; readonly haproxy: boolean; readonly tls: boolean };
  /** The scenarios to run (`PLAN` by default; `--workers` runs its groups only). */
  readonly plan?: readonly PlanEntry[];
}

/**
 * Every scenario of the plan, round after round (those not repeated in the first only, each group
 * in the reverse order every other round: `roundOrder`): its `prepare`, then autocannon and, on the
 * throughput scenarios, wrk right after on the same target; on a scenario that uses Redis, Redis's
 * script calls are counted around each run. Prints each run and returns them all.
 */
export async function runPlan(options: PlanOptions): Promise<Measurement[]> {
  const { context } = options;
  const measurements: Measurement[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const { scenario } of roundOrder(options.plan ?? PLAN, round)) {
      if (scenario.needsRedis === true && !options.available.redis) continue;
      if (scenario.needsNginx === true && !options.available.nginx) continue;
      if (scenario.needsHaproxy === true && !options.available.haproxy) continue;
      if (scenario.needsTls === true && !options.available.tls) continue;
      await scenario.prepare?.(context);
      const proxy = scenario.proxy?.(context);
      const runs: [Measurement['generator'], () => Promise<LoadResult>][] = [['autocannon', () => scenario.run(context)]];
      // wrk right after autocannon, on the same target: the two generators see the same machine.
      const wrkTarget = scenario.wrk?.(context);
      if (options.wrk && wrkTarget !== undefined)
        runs.push(['wrk', () => runWrk({ ...wrkTarget, connections: context.settings.connections, seconds: context.settings.durationSeconds })]);
      const redisStats = scenario.needsRedis === true ? options.redisStats : undefined;
      for (const [generator, load] of runs) {
        // Read outside the measured window: the INFO that reads them is not in Redis's CPU per request.
        const statsBefore = await redisStats?.();
        const { result, cpu } = await options.measure(proxy, load);
        const statsAfter = await redisStats?.();
        const redis = statsBefore === undefined || statsAfter === undefined ? undefined : statsDelta(statsBefore, statsAfter);
        const calls = redis?.scriptCalls;
        measurements.push({
          scenario: scenario.name,
          generator,
          description: scenario.description,
          round,
          expectStatuses: scenario.expectStatuses,
          reference: scenario.reference === true,
          result,
          cpu,
          ...(redis === undefined ? {} : { scriptCalls: redis.scriptCalls, redis }),
        });
        process.stdout.write(
          `${`${scenario.name} (${generator})`.padEnd(48)} round ${round}: ${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms${processes(cpu)}${perCall(result.requests, calls)}${redisPerRequest(result.requests, redis)}\n`,
        );
      }
    }
  }
  return measurements;
}

/** ", 3 processes" where the proxy was more than one process (a gateway's primary and workers), and how that changed during the run. */
function processes(cpu: CpuPerRequest): string {
  const counted = cpu.proxyProcesses;
  if (counted === undefined || (counted.start === 1 && counted.end === 1)) return '';
  return counted.start === counted.end ? `, ${counted.start} processes` : `, ${counted.start} → ${counted.end} processes`;
}

/** ", 61.2 requests per script call" where Redis's script calls were counted during the run. */
function perCall(requests: number, calls: number | undefined): string {
  if (calls === undefined) return '';
  return calls === 0 ? ', no script call' : `, ${(requests / calls).toFixed(1)} requests per script call`;
}

/** ", Redis 12.3 µs/request (INFO cpu)" where Redis's counters were read around the run. */
function redisPerRequest(requests: number, redis: RedisStats | undefined): string {
  return redis === undefined || requests === 0 ? '' : `, Redis ${(redis.cpuUsec / requests).toFixed(1)} µs/request (INFO cpu)`;
}
