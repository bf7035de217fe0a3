import { AggregatorRegistry, Counter, Gauge, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { QUESTION, type Port } from '../ipc/index.js';

type MetricJson = MetricObjectWithValues<MetricValue<string>>;

/** A worker whose metrics count: its id and pid (in a scrape's failure), and its port. */
export interface MetricsWorker {
  readonly id: number;
  readonly pid: number;
  readonly port: Port;
}

/** The kinds of metric whose values a worker that left still adds to the totals. */
const SUMMED = new Set(['counter', 'histogram']);

/** A scrape waits this long for a worker's metrics (Prometheus's own scrape timeout is 10 s). */
const ANSWER_TIMEOUT_MS = 5_000;

/**
 * The gateway's `/metrics` in the primary: every worker's registry, asked over IPC and summed by
 * prom-client's aggregator (each metric says how: counters and histograms add up, `gateway_upstream_up`
 * takes the lowest, …), with the primary's own (`gateway_workers`). The counters of workers that
 * retired in a reload stay in the totals (each sends them as it leaves), so a reload is no counter
 * reset; a worker that died takes its counts with it, as a process restart would. A worker that
 * does not answer makes the scrape fail (503) rather than report totals that went down.
 */
export function createClusterMetrics(serving: () => readonly MetricsWorker[]) {
  const own = new Registry();
  const workers = new Gauge({ name: 'gateway_workers', help: 'Workers serving (or finishing what they serve, in a reload).', registers: [own] });
  const deaths = new Counter({ name: 'gateway_worker_deaths_total', help: 'Workers that exited unasked, and were replaced.', registers: [own] });
  /** The counters of retired workers, by worker id until the worker is gone, then folded into `retired`. */
  const departed = new Map<number, MetricJson[]>();
  let retired: MetricJson[] = [];

  /** The gateway's metrics now: every worker's, summed, with the primary's own. */
  async function aggregated(): Promise<Pick<Registry, 'metrics' | 'getMetricsAsJSON'>> {
    const list = serving();
    workers.set(list.length);
    const answers = await Promise.all(list.map(async (worker) => [worker, await worker.port.ask(QUESTION.metrics, ANSWER_TIMEOUT_MS)] as const));
    const live: MetricJson[][] = [];
    const answered = new Set<number>();
    for (const [worker, answer] of answers) {
      if (Array.isArray(answer)) {
        live.push(answer as MetricJson[]);
        answered.add(worker.id);
      } else if (worker.port.connected()) {
        throw new Error(`worker ${worker.id} (pid ${worker.pid}) did not answer within ${ANSWER_TIMEOUT_MS} ms`);
      }
    }
    // A retired worker's last counts, unless it answered too (then they are in its answer already).
    const gone = [...departed].filter(([id]) => !answered.has(id)).map(([, metrics]) => metrics);
    const registry = AggregatorRegistry.aggregate([...live, retired, ...gone, await own.getMetricsAsJSON()]);
    await foldRetired(new Set(list.map((worker) => worker.id)));
    return registry;
  }

  /** Folds the last counts of workers no longer serving into one list: they cannot answer again. */
  async function foldRetired(servingIds: ReadonlySet<number>): Promise<void> {
    const done = [...departed].filter(([id]) => !servingIds.has(id));
    if (done.length === 0) return;
    for (const [id] of done) departed.delete(id);
    retired = (await AggregatorRegistry.aggregate([retired, ...done.map(([, metrics]) => metrics)]).getMetricsAsJSON()) as MetricJson[];
  }

  return {
    /** The primary's own registry: metrics of what the primary does itself (the admin API's refusals). */
    own,
    contentType: own.contentType,
    metrics: async (): Promise<string> => (await aggregated()).metrics(),
    /** The same as prom-client's JSON (the admin API's rates of decisions read it). */
    json: async (): Promise<MetricJson[]> => (await (await aggregated()).getMetricsAsJSON()) as MetricJson[],
    /** A retiring worker's counters and histograms as it leaves (gauges say nothing once it is gone). */
    departed(workerId: number, metrics: unknown): void {
      if (!Array.isArray(metrics)) return;
      departed.set(
        workerId,
        (metrics as MetricJson[]).filter((metric) => SUMMED.has(String(metric.type))),
      );
    },
    died(): void {
      deaths.inc();
    },
  };
}

export type ClusterMetrics = ReturnType<typeof createClusterMetrics>;
