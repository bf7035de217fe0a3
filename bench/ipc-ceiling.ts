// `npx tsx bench/ipc-ceiling.ts [--workers n] [--seconds s] [--in-flight n]`: what a check of a
// limit costs the primary when the workers of one gateway ask it over node:cluster's IPC channel,
// the channel in-process limits shared across workers would use. The primary's one thread bounds
// the checks of all workers at about 1 s ÷ (its CPU per check): that is the ceiling of the
// in-process limits with many cores (docs/benchmarks.md, "Scaling beyond two cores").
//
// Each worker keeps `in-flight` checks waiting (a check is about what the gateway would send: an
// account, a plan, a cost, an operation) and sends the next as each answer comes, for `seconds`;
// the primary counts the check in a Map (a stand-in for the decision, whose own cost the `limits in
// process` step of bench:steps gives) and answers. Two ways to send, one after the other:
// - one message a check;
// - the checks of one event-loop turn in one message, answered in one (as Redis calls are batched).
// Prints the checks per second, the primary's and the workers' CPU µs per check (process.cpuUsage),
// and the ceiling 1e6 ÷ the primary's µs. A measurement, not a test: it asserts nothing.
import cluster from 'node:cluster';
import { parseArgs } from 'node:util';

interface Check {
  readonly id: number;
  readonly account: string;
  readonly plan: string;
  readonly cost: number;
  readonly operation: string;
}
interface Answer {
  readonly id: number;
  readonly allowed: boolean;
  readonly remaining: number;
  readonly resetMs: number;
}
type Mode = 'one a message' | 'one message a turn';
const MODES: readonly Mode[] = ['one a message', 'one message a turn'];

const { values } = parseArgs({ options: { workers: { type: 'string' }, seconds: { type: 'string' }, 'in-flight': { type: 'string' } } });
const workers = Number(values.workers ?? 2);
const seconds = Number(values.seconds ?? 5);
const inFlight = Number(values['in-flight'] ?? 64);

if (cluster.isPrimary) {
  const counts = new Map<string, number>();
  const decide = (check: Check): Answer => {
    const used = (counts.get(check.account) ?? 0) + check.cost;
    counts.set(check.account, used);
    return { id: check.id, allowed: true, remaining: 1_000_000_000 - used, resetMs: 60_000 };
  };
  for (const mode of MODES) {
    const forked = Array.from({ length: workers }, () => cluster.fork({ IPC_MODE: mode }));
    for (const worker of forked)
      worker.on('message', (message: { check?: Check; checks?: Check[] }) => {
        if (message.check !== undefined) worker.send({ answer: decide(message.check) });
        else if (message.checks !== undefined) worker.send({ answers: message.checks.map(decide) });
      });
    await Promise.all(forked.map((worker) => new Promise((resolve) => worker.once('message', resolve))));
    const cpuFrom = process.cpuUsage();
    const from = performance.now();
    for (const worker of forked) worker.send({ go: seconds });
    const results = await Promise.all(
      forked.map(
        (worker) =>
          new Promise<{ checks: number; cpuUs: number }>((resolve) => {
            worker.on('message', (message: { done?: { checks: number; cpuUs: number } }) => message.done !== undefined && resolve(message.done));
          }),
      ),
    );
    const elapsed = (performance.now() - from) / 1000;
    const cpu = process.cpuUsage(cpuFrom);
    const checks = results.reduce((sum, r) => sum + r.checks, 0);
    const primaryUs = (cpu.user + cpu.system) / checks;
    const workerUs = results.reduce((sum, r) => sum + r.cpuUs, 0) / checks;
    process.stdout.write(
      `${mode.padEnd(20)} ${workers} workers × ${inFlight} in flight: ${Math.round(checks / elapsed).toLocaleString('en-US')} checks/s; primary ${primaryUs.toFixed(2)} CPU µs a check (ceiling ≈ ${Math.round(1e6 / primaryUs).toLocaleString('en-US')} checks/s), workers ${workerUs.toFixed(2)} µs a check\n`,
    );
    for (const worker of forked) worker.kill();
  }
} else {
  const mode = process.env.IPC_MODE as Mode;
  let next = 0;
  const waiting = new Map<number, () => void>();
  let queue: Check[] = [];
  const send = (check: Check) => {
    if (mode === 'one a message') return void process.send?.({ check });
    queue.push(check);
    // The first check of a turn schedules the send of all the turn's checks.
    if (queue.length === 1)
      setImmediate(() => {
        const checks = queue;
        queue = [];
        process.send?.({ checks });
      });
  };
  process.on('message', (message: { go?: number; answer?: Answer; answers?: Answer[] }) => {
    if (message.answer !== undefined) waiting.get(message.answer.id)?.();
    for (const answer of message.answers ?? []) waiting.get(answer.id)?.();
    if (message.go === undefined) return;
    const until = performance.now() + message.go * 1000;
    const cpuFrom = process.cpuUsage();
    let done = 0;
    let running = inFlight;
    const loop = () => {
      if (performance.now() >= until) {
        if (--running === 0) {
          const cpu = process.cpuUsage(cpuFrom);
          process.send?.({ done: { checks: done, cpuUs: cpu.user + cpu.system } });
        }
        return;
      }
      const id = next++;
      waiting.set(id, () => {
        waiting.delete(id);
        done += 1;
        loop();
      });
      send({ id, account: `account-${id % 1000}`, plan: 'business', cost: 1, operation: 'listPets' });
    };
    for (let i = 0; i < inFlight; i++) loop();
  });
  process.send?.({ ready: true });
}
