import type { FinalMetrics, Listening } from '../assembly/worker-role.js';
import { createPort, MESSAGE } from '../ipc/index.js';
import type { Generation, Member, Started } from './members.js';
import type { SpawnedWorker } from './spawn.js';

export interface MemberEvents {
  /** A worker that handed over sends its counters before it exits. */
  readonly onFinalMetrics?: ((workerId: number, metrics: unknown) => void) | undefined;
  /** The process exited (after `started` settled). */
  readonly onExit: (code: number | null, signal: string | null) => void;
}

/**
 * A worker as the primary knows it, from the process just spawned with `settings`: its port, its
 * state (`starting` until it says it listens), and `started`, which settles when it listens or
 * exits first.
 */
export function createWorkerMember(worker: SpawnedWorker, settings: Generation, events: MemberEvents): Member {
  let settle: (started: Started) => void = () => {};
  const port = createPort(worker.channel);
  const member: Member = {
    worker,
    id: worker.id,
    pid: worker.pid,
    port,
    settings,
    state: 'starting',
    listening: undefined,
    started: new Promise((resolve) => (settle = resolve)),
  };
  port.on<Listening>(MESSAGE.listening, (message) => {
    if (member.state !== 'starting') return;
    member.state = 'listening';
    member.listening = message;
    settle({ ok: true });
  });
  port.on<FinalMetrics>(MESSAGE.finalMetrics, (message) => events.onFinalMetrics?.(worker.id, message.metrics));
  worker.onExit((code, signal) => {
    settle({ ok: false, code, signal });
    events.onExit(code, signal);
  });
  return member;
}

/** Past its own deadline, how long a stopping worker is given before SIGKILL. */
const KILL_GRACE_MS = 5_000;

/** SIGKILL if the worker is still there well past its deadline (SHUTDOWN_TIMEOUT_MS). */
function killLater(member: Member): void {
  const kill = setTimeout(() => member.worker.kill('SIGKILL'), member.settings.config.shutdownTimeoutMs + KILL_GRACE_MS);
  kill.unref();
  member.worker.onExit(() => clearTimeout(kill));
}

/** Tells a listening worker to hand its connections over to the others and exit (a reload). */
export function retireMember(member: Member): void {
  member.state = 'retiring';
  member.port.send({ type: MESSAGE.handOver });
  killLater(member);
}

/** SIGTERM: the worker drains within SHUTDOWN_TIMEOUT_MS and exits. */
export function stopMember(member: Member): void {
  member.worker.kill('SIGTERM');
  killLater(member);
}
