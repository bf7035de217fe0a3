import type { ServiceProcess } from '@animal-store/testkit';

/** One line of a gateway's access log, as the tests read it (pino adds the writer's `pid`). */
export interface AccessLine {
  readonly pid: number;
  readonly subject?: string;
  readonly status: number;
  readonly decision?: string;
}

/**
 * Reads the access log of a gateway process as it grows (each call parses only what is new: a
 * hostile run writes tens of thousands of lines). `of(subject, count)` resolves with the lines of
 * `subject`'s requests once `count` of them were written (the log is written in blocks, up to
 * 100 ms late, later on a hogged host), and throws after 30 s with what was found.
 */
export function accessLinesOf(service: Pick<ServiceProcess, 'output'>) {
  let parsed = 0;
  const lines: AccessLine[] = [];
  return async function of(subject: string, count: number): Promise<AccessLine[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const output = service.output();
      const end = output.lastIndexOf('\n') + 1;
      for (const line of output.slice(parsed, end).split('\n')) {
        if (!line.startsWith('{') || !line.includes('"status"')) continue;
        const record = JSON.parse(line) as AccessLine;
        if (typeof record.status === 'number') lines.push(record);
      }
      parsed = end;
      const found = lines.filter((line) => line.subject === subject);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`${found.length} access-log lines of ${subject}, ${count} expected`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
}

/** The answers of `lines` by status and by the worker (pid) that wrote them. */
export function byWorker(lines: readonly AccessLine[]): Map<number, Record<number, number>> {
  return countedBy(lines, (line) => line.status);
}

/** The limit decisions of `lines` (`allowed`, `limited`, `local`…) by the worker (pid) that made them. */
export function decisionsByWorker(lines: readonly AccessLine[]): Map<number, Record<string, number>> {
  return countedBy(lines, (line) => line.decision ?? 'none');
}

function countedBy<K extends string | number>(lines: readonly AccessLine[], keyOf: (line: AccessLine) => K): Map<number, Record<K, number>> {
  const workers = new Map<number, Record<K, number>>();
  for (const line of lines) {
    let counts = workers.get(line.pid);
    if (counts === undefined) workers.set(line.pid, (counts = {} as Record<K, number>));
    const key = keyOf(line);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return workers;
}
