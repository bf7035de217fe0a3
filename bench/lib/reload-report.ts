import type { ReloadFigures, ReloadRun } from './reload.js';

/** Failed requests of a run: answers that were not a 200, socket errors and timeouts. */
export function failedRequests(run: ReloadRun): number {
  return run.failedAnswers + run.socketErrors + run.timeouts;
}

/** The report's lines for the reload figure. */
export function reloadLines(figures: ReloadFigures | undefined): string[] {
  if (figures === undefined) return ['Not measured in this run.'];
  if (figures.skipped !== undefined) return [`Not measured: ${figures.skipped}.`];
  const lines = [
    `The gateway (${figures.gateway}) loaded with ${figures.connections} connections; SIGHUP sent to its primary ${figures.signalAfterSeconds} s into the load, which went on until every worker had been replaced and ${figures.tailSeconds} s more (at most ${figures.maxSeconds} s in all). A failed request is an answer other than a 200, a socket error or a timeout.`,
    '',
    '| Load generator | requests | failed (goal 0) | not 200 | socket errors | timeouts | workers replaced | reload took | primary still running |',
    '|---|---:|---:|---:|---:|---:|---|---:|---|',
  ];
  for (const run of figures.runs) {
    const failed = failedRequests(run);
    lines.push(
      `| ${run.generator} | ${run.requests} | ${failed === 0 ? '0' : `**${failed}**`} | ${run.failedAnswers} | ${run.socketErrors} | ${run.timeouts} | ${run.replaced} of ${run.workersBefore} (${run.workersAfter} after) | ${run.reloadMs === undefined ? 'not within the load' : `${(run.reloadMs / 1000).toFixed(1)} s`} | ${run.primaryAlive ? 'yes' : '**no**'} |`,
    );
  }
  return lines;
}
