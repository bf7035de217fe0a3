/** prom-client's JSON of a metric, as much of it as is read here. */
interface MetricJson {
  readonly name: string;
  readonly values?: readonly { readonly labels: Readonly<Record<string, string | number>>; readonly value: number }[];
}

/** One count of `gateway_ratelimit_decisions_total`. */
export interface DecisionCount {
  readonly plan: string;
  readonly decision: string;
  readonly count: number;
}

/**
 * The rate-limit decisions so far, by plan and decision, from the gateway's own counter
 * (`gateway_ratelimit_decisions_total`, every worker's summed): what the console turns into rates
 * of answers and refusals per plan, two readings apart. Not a count of its own.
 */
export function decisionCounts(metrics: readonly MetricJson[]): DecisionCount[] {
  const counter = metrics.find((metric) => metric.name === 'gateway_ratelimit_decisions_total');
  return (counter?.values ?? []).map(({ labels, value }) => ({ plan: String(labels.plan), decision: String(labels.decision), count: value }));
}
