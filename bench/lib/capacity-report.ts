import { CAPACITY_FIGURES, goalText, verdict } from './figures.js';
import type { PairedResult } from './paired.js';

/**
 * The report's lines for the observability goals, judged on the paired measurement: the figures
 * against their goals, with the control's ratio beside them, then each gateway's medians and rounds.
 */
export function capacityLines(result: PairedResult | undefined, judged: boolean): string[] {
  if (result === undefined) return ['Not measured in this run: no paired measurement (the reason is given above).'];
  const lines = [
    `Capacity ratio, each gateway loaded together with \`off\`, from CPU µs per request: \`off\` (the full pipeline on Redis, as \`gateway-limits-redis\`) with, in turn, \`control\` (a second gateway configured as \`off\`), \`metrics\`, \`tracing\` and \`sampled\` (one trace in ten), the two loaded at the same time by one ${result.tool === 'wrk' ? '`wrk -t1`' : 'autocannon instance'} each (${result.connections} connections, ${result.seconds} s a pairing, ${result.rounds} round(s) of every pairing, after a warm-up round of all of them). A figure is, in each of its pairings, \`off\`'s CPU µs per request ÷ the gateway's over the same seconds, and the median of those: the requests it serves per CPU-second, relative to \`off\`. The control's ratio is the method's noise in this run.`,
    '',
    "| Figure | capacity ratio (loaded together, median of the rounds' ratios) | verdict | ratio of the medians (information) | goal |",
    '|---|---:|---|---:|---|',
  ];
  for (const figure of CAPACITY_FIGURES) {
    const gateway = result.gateways.find((g) => g.name === figure.gateway);
    const value = gateway?.capacityRatio;
    const ofMedians = gateway === undefined ? '—' : figure.format(gateway.ratioOfMedians);
    lines.push(
      `| ${figure.label} | ${value === undefined ? 'not measured' : figure.format(value)} | ${verdict(figure, value, judged)} | ${ofMedians} | ${goalText(figure)} |`,
    );
  }
  lines.push(
    '',
    '| Gateway (paired) | CPU µs/req, median | req/s, median | req/s ÷ off | CPU µs/req by round | capacity ÷ off by round | ratio of the medians |',
    '|---|---:|---:|---:|---|---|---:|',
    ...result.gateways.map(
      (g) =>
        `| ${g.name} | ${g.cpuUsPerRequest.toFixed(1)} | ${Math.round(g.rps)} | ${g.rpsRatio.toFixed(3)} | ${g.rounds.map((s) => s.cpuUsPerRequest.toFixed(1)).join(', ')} | ${g.capacityRatioByRound.map((r) => r.toFixed(3)).join(', ')} | ${g.ratioOfMedians.toFixed(3)} |`,
    ),
    '',
    "The ratio of the medians is for information: where the host drifts over the rounds, each gateway's median can come from a different round, while a round's ratio compares the same seconds.",
  );
  return lines;
}
