import type { PairedResult } from './paired.js';

/** One path of `bench:compare`: its three gateways' paired figures (`ref` the baseline). */
export interface PathComparison {
  readonly path: string;
  readonly description: string;
  readonly paired: PairedResult;
  /** Each gateway's processes once started (a primary and its worker: 2), all of them in its CPU per request. */
  readonly processes?: Readonly<Record<string, number>>;
}

export interface ComparisonRun {
  readonly ref: string;
  readonly commit: string;
  /** `git describe` of the working tree. */
  readonly work: string;
  readonly rounds: number;
  readonly seconds: number;
  readonly machine: Readonly<Record<string, unknown>>;
  /** The core answering wrk directly (median of 3 runs): how fast this host is in this run. */
  readonly coreCpuUsPerRequest: number;
  readonly results: readonly PathComparison[];
}

const fixed = (value: number, digits: number) => value.toFixed(digits);

/**
 * The comparison as Markdown and as data. Per path: each checkout's median CPU µs per request and
 * req/s (each gateway loaded together with `ref`), and work's capacity ratio to ref (ref's CPU per
 * request ÷ work's, per round, median: above 1 is cheaper), beside the control's (two identical
 * gateways: the method's resolution in this run). Across paths, each checkout's full paths ÷ its
 * bare one, by CPU per request.
 */
export function comparisonReport(run: ComparisonRun): { text: string; json: unknown } {
  const figures = (result: PathComparison, name: string) => {
    const figure = result.paired.gateways.find((g) => g.name === name);
    if (figure === undefined) throw new Error(`${result.path}: no figures of ${name}`);
    return figure;
  };
  const lines = [
    `# bench:compare ${run.ref} (${run.commit.slice(0, 12)}) against the working tree (${run.work})`,
    '',
    `${run.rounds} rounds × ${run.seconds} s a pairing, ${run.results[0]?.paired.tool ?? 'wrk'} with ${run.results[0]?.paired.connections ?? 25} connections per gateway, two gateways loaded at once; Node ${String(run.machine.node)}, ${String(run.machine.cores)} × ${String(run.machine.cpu)}, load average at start ${JSON.stringify(run.machine.loadavgAtStart)}.`,
    '',
    `The core answering directly: ${fixed(run.coreCpuUsPerRequest, 1)} CPU µs per request (this host's yardstick: the same core read 26 on the machine of the issue that set the goals). Per path, each gateway's CPU µs per request also as a multiple of it (× core).`,
    '',
    '| path | ref CPU µs/req | work CPU µs/req | ref × core | work × core | ref req/s | work req/s | work capacity ÷ ref | control ÷ ref (noise) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const result of run.results) {
    const [ref, control, work] = ['ref', 'control', 'work'].map((name) => figures(result, name)) as [
      ReturnType<typeof figures>,
      ReturnType<typeof figures>,
      ReturnType<typeof figures>,
    ];
    lines.push(
      `| ${result.path} | ${fixed(ref.cpuUsPerRequest, 1)} | ${fixed(work.cpuUsPerRequest, 1)} | ${fixed(ref.cpuUsPerRequest / run.coreCpuUsPerRequest, 2)} | ${fixed(work.cpuUsPerRequest / run.coreCpuUsPerRequest, 2)} | ${Math.round(ref.rps)} | ${Math.round(work.rps)} | ${fixed(work.capacityRatio, 3)} | ${fixed(control.capacityRatio, 3)} |`,
    );
  }
  // Each full path ÷ the bare path of the same spread of accounts (`redis@2000-uniform` ÷ `bare@2000-uniform`).
  const spreadOf = (path: string) => (path.includes('@') ? path.slice(path.indexOf('@')) : '');
  const isBare = (path: string) => path.split('@')[0] === 'bare';
  const full = run.results.flatMap((result) => {
    const bare = run.results.find((other) => isBare(other.path) && spreadOf(other.path) === spreadOf(result.path));
    return isBare(result.path) || bare === undefined ? [] : [{ result, bare }];
  });
  if (full.length > 0) {
    lines.push('', '| ÷ bare (capacity: bare CPU µs/req ÷ the path’s) | ref | work |', '|---|---:|---:|');
    for (const { result, bare } of full) {
      const ratio = (name: string) => fixed(figures(bare, name).cpuUsPerRequest / figures(result, name).cpuUsPerRequest, 3);
      lines.push(`| ${result.path} | ${ratio('ref')} | ${ratio('work')} |`);
    }
  }
  lines.push('', ...run.results.map((result) => `- ${result.path}: ${result.description}`));
  const counted = run.results.flatMap((result) =>
    result.processes === undefined
      ? []
      : [
          `${result.path}: ${Object.entries(result.processes)
            .map(([name, count]) => `${name} ${count}`)
            .join(', ')}`,
        ],
  );
  if (counted.length > 0)
    lines.push(
      '',
      `Every gateway ran with WORKERS=1 (a ref from before WORKERS ignores it). Processes of each, once started (${counted.join('; ')}): a CPU µs per request is that of all of a gateway's processes, so where work has a primary beside its worker, the primary's cost is in work's figure.`,
    );
  lines.push('');
  return { text: lines.join('\n'), json: run };
}
