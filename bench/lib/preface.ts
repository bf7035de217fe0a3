/**
 * What `npm run bench` prints before it starts anything: what it does to the machine (services on
 * loopback ports, load on every core, then a CPU hog that keeps every core busy) and how long it
 * takes, as measured on 2 cores (bench/README.md, "How long a run takes"). The hog is the bursts'
 * (lib/bursts.ts): six spinning processes a core, testkit's `startCpuHog`.
 */
export function preface(options: { readonly quick: boolean; readonly workersOnly: boolean; readonly cores: number }): string {
  const command = `npm run bench --${options.workersOnly ? ' --workers' : ''}${options.quick ? ' --quick' : ''}`.replace(/ --$/, '');
  // Measured on 2 cores, from a quiet host to a busy one (the load average at the start changes it most).
  const duration = options.workersOnly
    ? options.quick
      ? 'about 2 to 4 minutes on 2 cores (2 min 17 s measured)'
      : 'about 5 to 10 minutes on 2 cores'
    : options.quick
      ? 'about 4 to 8 minutes on 2 cores (3 min 25 s and 7 min 38 s measured)'
      : 'about 10 to 25 minutes on 2 cores (21 min 15 s measured on a busy host)';
  return [
    `${command}: ${duration}; longer on a busy host.`,
    `  It starts the pets core, gateways and the references it can run on free ports on 127.0.0.1,`,
    `  loads each scenario with autocannon (and wrk where it is installed), which keeps the cores busy throughout,`,
    `  and last, for the bursts "under the hog", keeps every core busy with a CPU hog (${options.cores * 6} spinning processes here):`,
    `  other programs on this machine run slowly meanwhile. Results: bench/results/<time>.{json,md,svg}.`,
    `  ${options.quick ? 'A smoke test: it checks the answers, and its timings are no measurement.' : 'Its figures are ratios within the run: absolute numbers on a shared machine are noise.'}`,
    '',
  ].join('\n');
}
