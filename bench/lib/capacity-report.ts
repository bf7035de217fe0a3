import { CAPACITY_FIGURES, goalText, verdict } from './figures.js';
import type { PairedResult } from './paired.js';

/**
 * The report's lines for the observability goals, judged on the paired measurement: the figures
 * against their goals, with the control's ratio beside them, then each gateway's medians and rounds.
 */
export function capacityLines(result: PairedResult | undefined, judged: boolean): string[] {
  if (result === undefined) return ['Not measured in this run: no paired measurement (the reason is given above).'];
  const lines = [
    `Capacity ratio, the gateways loaded together, from CPU µs per request: \`off\` (the full pipeline on Redis, as \`gateway-limits-redis\`), \`control\` (a second gateway configured as \`off\`), \`metrics\` and \`tracing\`, loaded at the same time by one ${result.tool === 'wrk' ? '`wrk -t1`' : 'autocannon instance'} each (${result.connections} connections, ${result.seconds} s, ${result.rounds} round(s), after a warm-up round). A figure is \`off\`'s median CPU µs per request ÷ the gateway's: the requests it serves per CPU-second, relative to \`off\`. The control's ratio is the method's noise in this run.`,
    '',
    "| Figure | capacity ratio (loaded together, CPU µs per request) | verdict | median of the rounds' ratios (information) | goal |",
    '|---|---:|---|---:|---|',
  ];
  for (const figure of CAPACITY_FIGURES) {
    const gateway = result.gateways.find((g) => g.name === figure.gateway);
    const value = gateway?.capacityRatio;
    const byRound = gateway === undefined ? '—' : figure.format(gateway.medianRoundRatio);
    lines.push(
      `| ${figure.label} | ${value === undefined ? 'not measured' : figure.format(value)} | ${verdict(figure, value, judged)} | ${byRound} | ${goalText(figure)} |`,
    );
  }
  lines.push(
    '',
    '| Gateway (paired) | CPU µs/req, median | req/s, median | req/s ÷ off | CPU µs/req by round | capacity ÷ off by round | their median |',
    '|---|---:|---:|---:|---|---|---:|',
    ...result.gateways.map(
      (g) =>
        `| ${g.name} | ${g.cpuUsPerRequest.toFixed(1)} | ${Math.round(g.rps)} | ${g.rpsRatio.toFixed(3)} | ${g.rounds.map((s) => s.cpuUsPerRequest.toFixed(1)).join(', ')} | ${g.capacityRatioByRound.map((r) => r.toFixed(3)).join(', ')} | ${g.medianRoundRatio.toFixed(3)} |`,
    ),
    '',
    "The ratio of each round (the gateways' CPU over the same seconds) and their median are for information: where the host drifts over the rounds, the per-gateway medians can come from different rounds, and the two figures part.",
  );
  return lines;
}
