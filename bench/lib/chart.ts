/** One bar group: a scenario's throughput and latency (medians). */
export interface ChartRow {
  readonly scenario: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * An SVG readable at a glance: left, requests per second per scenario (horizontal bars); right,
 * p50 and p99 latency per scenario. Plain SVG, no script, no external font.
 */
export function renderChart(title: string, rows: readonly ChartRow[]): string {
  const rowHeight = 26;
  const top = 56;
  const labelWidth = 230;
  const barWidth = 330;
  const gap = 60;
  const height = top + rows.length * rowHeight + 40;
  const width = labelWidth + barWidth * 2 + gap + 100; // room for the longest bar's label
  const maxRps = Math.max(1, ...rows.map((r) => r.rps));
  const maxMs = Math.max(1, ...rows.map((r) => r.p99));
  const latencyX = labelWidth + barWidth + gap;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="16" y="22" font-size="15" font-weight="bold">${escape(title)}</text>`,
    `<text x="${labelWidth}" y="${top - 10}" font-weight="bold">requests per second</text>`,
    `<text x="${latencyX}" y="${top - 10}" font-weight="bold">latency, ms: <tspan fill="#2b6cb0">p50</tspan> / <tspan fill="#c05621">p99</tspan></text>`,
  ];
  rows.forEach((row, i) => {
    const y = top + i * rowHeight;
    const rpsWidth = (row.rps / maxRps) * barWidth;
    const p50Width = (row.p50 / maxMs) * barWidth;
    const p99Width = (row.p99 / maxMs) * barWidth;
    parts.push(
      `<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${escape(row.scenario)}</text>`,
      `<rect x="${labelWidth}" y="${y + 3}" width="${rpsWidth.toFixed(1)}" height="16" fill="#4a5568"/>`,
      `<text x="${labelWidth + rpsWidth + 4}" y="${y + 15}">${Math.round(row.rps)}</text>`,
      `<rect x="${latencyX}" y="${y + 3}" width="${p99Width.toFixed(1)}" height="16" fill="#c05621" opacity="0.45"/>`,
      `<rect x="${latencyX}" y="${y + 3}" width="${p50Width.toFixed(1)}" height="16" fill="#2b6cb0"/>`,
      `<text x="${latencyX + Math.max(p99Width, p50Width) + 4}" y="${y + 15}">${ms(row.p50)} / ${ms(row.p99)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** Milliseconds for a label: two decimals below 10 ms, where the gateway's own share shows. */
function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(0);
}
