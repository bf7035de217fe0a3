// A `node:cluster` worker for the tests and the benchmark of the primary's limits: it holds a
// worker-side limiter (`createPrimaryLimiter(process, …)`) and runs what its primary asks over the
// same IPC channel, answering with what the limiter decided. No HTTP: the protocol alone.
import type { LimitRequest, Policy, RateDecision } from '../../src/ratelimit/index.js';
import { channelToPrimary, createPort } from '../../src/ipc/index.js';
import { createPrimaryLimiter } from '../../src/ratelimit/primary/index.js';
import { RateLimitUnavailableError } from '../../src/ratelimit/index.js';

/** What the primary asks (`type: 'limits-test:run'`). */
export type WorkerTask =
  /** The requests at once (one batch, or as many as the load makes), or one after the other. */
  | { readonly kind: 'concurrent' | 'sequential'; readonly engine?: 'process' | 'local'; readonly requests: readonly LimitRequest[] }
  /** `rounds` times `batch` checks at once on `subjects` subjects: the CPU this process spent. */
  | { readonly kind: 'cpu'; readonly request: LimitRequest; readonly subjects: number; readonly batch: number; readonly rounds: number }
  /** A check the primary will never answer (it does not host this worker), then waits to be disconnected. */
  | { readonly kind: 'unanswered'; readonly request: LimitRequest };

/** A decision as the tests compare them: what was decided, without the clock's readings. */
export interface Outcome {
  readonly kind: string;
  readonly shadow: boolean;
  readonly remaining: readonly number[];
  /** `layer.window` of the window that refused (`own.minute`), or null. */
  readonly binding: string | null;
  readonly policy: string;
}

export const outcomeOf = (d: RateDecision): Outcome => ({
  kind: d.kind,
  shadow: d.shadow === true,
  remaining: d.windows.map((w) => w.remaining),
  binding: d.binding === undefined ? null : `${d.binding.layer ?? 'own'}.${d.binding.name}`,
  policy: d.policy.name,
});

if (process.send !== undefined && process.env.LIMITS_TEST_WORKER === '1') {
  const send = process.send.bind(process);
  const port = createPort(channelToPrimary());
  const limiters = { process: createPrimaryLimiter(port, 'process'), local: createPrimaryLimiter(port, 'local') };
  // One object per policy, as the gateway's plans give: the limiter sends a definition once.
  const interned = new Map<string, Policy>();
  const intern = (policy: Policy): Policy => {
    const key = JSON.stringify(policy);
    let found = interned.get(key);
    if (found === undefined) interned.set(key, (found = policy));
    return found;
  };
  const internRequest = (request: LimitRequest): LimitRequest => ({
    ...request,
    policy: intern(request.policy),
    ...(request.layers === undefined ? {} : { layers: request.layers.map((layer) => ({ ...layer, policy: intern(layer.policy) })) }),
  });

  async function run(task: WorkerTask): Promise<unknown> {
    if (task.kind === 'concurrent' || task.kind === 'sequential') {
      const limiter = limiters[task.engine ?? 'process'];
      const requests = task.requests.map(internRequest);
      if (task.kind === 'concurrent') return (await Promise.all(requests.map((request) => limiter.check(request)))).map(outcomeOf);
      const outcomes: Outcome[] = [];
      for (const request of requests) outcomes.push(outcomeOf(await limiter.check(request)));
      return outcomes;
    }
    if (task.kind === 'cpu') {
      const requests = Array.from({ length: task.subjects }, (_, i) => internRequest({ ...task.request, subject: `${task.request.subject}-${i}` }));
      let next = 0;
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let round = 0; round < task.rounds; round++) {
        const batch: Promise<RateDecision>[] = [];
        for (let i = 0; i < task.batch; i++) batch.push(limiters.process.check(requests[next++ % requests.length] as LimitRequest));
        await Promise.all(batch);
      }
      const spent = process.cpuUsage(cpu);
      return { cpuMicros: spent.user + spent.system, wallMs: performance.now() - started };
    }
    if (task.kind !== 'unanswered') throw new Error('unknown task');
    const { request } = task;
    // `unanswered`: the check waits until the channel closes, then fails; so does one asked after.
    const pending = limiters.process.check(internRequest(request)).then(
      () => 'decided',
      (error: unknown) => (error instanceof RateLimitUnavailableError ? 'unavailable' : `failed: ${String(error)}`),
    );
    process.once('disconnect', () => {
      void pending.then(async (first) => {
        const second = await limiters.process.check(internRequest(request)).then(
          () => 'decided',
          (error: unknown) => (error instanceof RateLimitUnavailableError ? 'unavailable' : `failed: ${String(error)}`),
        );
        // Told by the exit code, the channel being gone: 0 when both were refused as unavailable.
        process.exit(first === 'unavailable' && second === 'unavailable' ? 0 : 3);
      });
    });
    return 'asked';
  }

  process.on('message', (message: { type?: unknown; id?: number; task?: WorkerTask }) => {
    if (message.type !== 'limits-test:run') return;
    run(message.task as WorkerTask).then(
      (result) => send({ type: 'limits-test:done', id: message.id, result }),
      (error: unknown) => send({ type: 'limits-test:done', id: message.id, error: String(error) }),
    );
  });
  send({ type: 'limits-test:ready' });
}
