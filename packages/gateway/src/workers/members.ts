import type { Worker } from 'node:cluster';
import type { GatewayConfig } from '../config/index.js';
import type { Listening } from './ipc.js';

/** The settings a worker is forked with: a snapshot, replaced as a whole by a reload. */
export interface Generation {
  /** The configuration they make, as the primary read it. */
  readonly config: GatewayConfig;
  /** Variables over the primary's environment (the settings file's), given to each worker. */
  readonly overrides: Readonly<Record<string, string>>;
  /** `WORKERS`, with `auto` worked out. */
  readonly workers: number;
}

/** How a worker's start ended: it listens, or it exited first. */
export type Started = { readonly ok: true } | { readonly ok: false; readonly code: number | null; readonly signal: string | null };

/** A worker as the primary knows it. */
export interface Member {
  readonly worker: Worker;
  readonly pid: number;
  readonly settings: Generation;
  /** `retiring`: handing its connections over (a reload), then it exits. */
  state: 'starting' | 'listening' | 'retiring';
  listening: Listening | undefined;
  /** Resolves when the worker listens, or exits before it does. */
  readonly started: Promise<Started>;
}

/** What the primary's workers offer a rolling reload. */
export interface Pool {
  /** A new worker with `settings`, starting. */
  fork(settings: Generation): Member;
  /** Hands a listening worker's connections over to the others, then it exits. */
  retire(member: Member): void;
  /** The workers that listen, in the order they were forked. */
  listening(): Member[];
  /** False once the gateway is stopping. */
  running(): boolean;
}

/** What a worker's exit said, for the log. */
export const exitFields = (member: Member, code: number | null, signal: string | null) => ({ worker: member.worker.id, pid: member.pid, code, signal });

/** `exit code 2`, or the signal's name. */
export const howItExited = (code: number | null, signal: string | null): string => (signal === null ? `exit code ${code}` : signal);

/** Resolves with the outcome of a start, or `timeout` (the worker is then killed). */
export async function startedWithin(member: Member, timeoutMs: number): Promise<Started | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const result = await Promise.race([member.started, timeout]);
  clearTimeout(timer);
  if (result === 'timeout') member.worker.process.kill('SIGKILL');
  return result;
}
