import type { Metric, Registry } from 'prom-client';

/*
 * Counters and histograms for the request path, exposed through prom-client's registry. prom-client's
 * own metrics validate and hash a labels object at every `inc` and `observe` (about a microsecond
 * each, several a request). These take the label values as arguments, in the order of their label
 * names, and find the series through one map per label: no object, string or closure is made once
 * a series exists, so the cost a request is a few map reads and additions. A value of `''` leaves
 * its label out of the series (a failed call has `error_type`, an answered one a status).
 * The text format is prom-client's: the registry formats what `get()` returns.
 */

type Labels = Record<string, string>;
type Value = string | number | boolean;

interface Exposed {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: { labels: Labels; value: number; metricName?: string }[] }>;
  reset(): void;
}

const nth = (i: number, a?: Value, b?: Value, c?: Value, d?: Value, e?: Value): Value => (i === 0 ? a : i === 1 ? b : i === 2 ? c : i === 3 ? d : e) ?? '';

/** The series of one metric, reached by label values: one map per label name, the series at the end. */
class SeriesTable<S> {
  private root = new Map<Value, unknown>();
  private listed: { readonly labels: Labels; readonly series: S }[] = [];
  constructor(
    private readonly labelNames: readonly string[],
    private readonly create: () => S,
  ) {}

  /** The series of these label values (in the order of the label names), made at first use. */
  at(a?: Value, b?: Value, c?: Value, d?: Value, e?: Value): S {
    const depth = this.labelNames.length;
    let level = this.root;
    for (let i = 0; i < depth - 1; i++) {
      const value = nth(i, a, b, c, d, e);
      let next = level.get(value) as Map<Value, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const last = depth === 0 ? '' : nth(depth - 1, a, b, c, d, e);
    return (level.get(last) as S | undefined) ?? this.add(level, last, [a, b, c, d, e].slice(0, depth));
  }

  private add(level: Map<Value, unknown>, last: Value, values: readonly (Value | undefined)[]): S {
    const labels: Labels = {};
    values.forEach((value, i) => {
      if (value !== '' && value !== undefined) labels[this.labelNames[i] as string] = String(value);
    });
    const series = this.create();
    level.set(last, series);
    this.listed.push({ labels, series });
    return series;
  }

  all(): readonly { readonly labels: Labels; readonly series: S }[] {
    return this.listed;
  }

  clear(): void {
    this.root = new Map();
    this.listed = [];
  }
}

export interface CounterSeries {
  value: number;
}

/** A counter: `counter.at(...values).value += 1`. */
export class SeriesCounter implements Exposed {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly table: SeriesTable<CounterSeries>;
  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    registry: Registry,
  ) {
    this.table = new SeriesTable(labelNames, () => ({ value: 0 }));
    registry.registerMetric(this as unknown as Metric);
  }
  at(a?: Value, b?: Value, c?: Value, d?: Value, e?: Value): CounterSeries {
    return this.table.at(a, b, c, d, e);
  }
  async get() {
    const values = this.table.all().map(({ labels, series }) => ({ labels, value: series.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
  reset(): void {
    this.table.clear();
  }
}

export interface HistogramSeries {
  /** Per bucket, the observations at most its bound and above the one before (not cumulative). */
  readonly counts: number[];
  sum: number;
  count: number;
}

/** A histogram: `histogram.observe(histogram.at(...values), value)`, a bucket search and three additions. */
export class SeriesHistogram implements Exposed {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly table: SeriesTable<HistogramSeries>;
  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    this.table = new SeriesTable(labelNames, () => ({ counts: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 }));
    registry.registerMetric(this as unknown as Metric);
  }
  at(a?: Value, b?: Value, c?: Value, d?: Value, e?: Value): HistogramSeries {
    return this.table.at(a, b, c, d, e);
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
    for (const { labels, series } of this.table.all()) {
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
    this.table.clear();
  }
}
