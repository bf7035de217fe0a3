import type { Metric, Registry } from 'prom-client';

/*
 * Counters and histograms for the request path, exposed through prom-client's registry. prom-client's
 * own metrics validate and hash their labels at every `inc` and `observe` (about a microsecond
 * each, several a request); these find a series once by a key the caller already has and then
 * only add numbers. The text format is prom-client's: the registry formats what `get()` returns.
 */

type Labels = Readonly<Record<string, string>>;

interface Exposed {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: { labels: Labels; value: number; metricName?: string }[] }>;
  reset(): void;
}

export interface CounterSeries {
  value: number;
}

/** A counter whose series are found by a string key (`series(key, labels)`), then `value += 1`. */
export class SeriesCounter implements Exposed {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly all = new Map<string, { labels: Labels; series: CounterSeries }>();
  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }
  series(key: string, labels: () => Labels): CounterSeries {
    let found = this.all.get(key);
    if (found === undefined) {
      found = { labels: labels(), series: { value: 0 } };
      this.all.set(key, found);
    }
    return found.series;
  }
  async get() {
    const values = [...this.all.values()].map(({ labels, series }) => ({ labels, value: series.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
  reset(): void {
    this.all.clear();
  }
}

export interface HistogramSeries {
  /** Per bucket, the observations at most its bound and above the one before (not cumulative). */
  readonly counts: number[];
  sum: number;
  count: number;
}

/** A histogram with the same series lookup; `observe` is a bucket search and three additions. */
export class SeriesHistogram implements Exposed {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all = new Map<string, { labels: Labels; series: HistogramSeries }>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }
  series(key: string, labels: () => Labels): HistogramSeries {
    let found = this.all.get(key);
    if (found === undefined) {
      found = { labels: labels(), series: { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 } };
      this.all.set(key, found);
    }
    return found.series;
  }
  observe(series: HistogramSeries, value: number): void {
    let bucket = 0;
    while (bucket < this.bounds.length && value > (this.bounds[bucket] as number)) bucket += 1;
    (series.counts[bucket] as number) += 1;
    series.sum += value;
    series.count += 1;
  }
  async get() {
    const values: { labels: Labels; value: number; metricName: string }[] = [];
    for (const { labels, series } of this.all.values()) {
      let cumulative = 0;
      for (let bucket = 0; bucket <= this.bounds.length; bucket++) {
        cumulative += series.counts[bucket] as number;
        const le = bucket === this.bounds.length ? '+Inf' : String(this.bounds[bucket]);
        values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels, value: series.sum, metricName: `${this.name}_sum` }, { labels, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
  reset(): void {
    this.all.clear();
  }
}
