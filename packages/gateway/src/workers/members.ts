import type { Listening } from '../assembly/worker-role.js';
import type { Placement } from '../assembly/placement.js';
import type { GatewayConfig } from '../config/index.js';
import type { Port } from '../ipc/index.js';
import type { SpawnedWorker } from './spawn.js';

/** The settings a worker is forked with: a snapshot, replaced as a whole by a reload. */
export interface Generation {
  /** The configuration they make, as the primary read it. */
  readonly config: GatewayConfig;
  /** Variables over the primary's environment (the settings file's), given to each worker. */
  readonly overrides: Readonly<Record<string, string>>;
  /** `WORKERS`, with `auto` worked out. */
  readonly workers: number;
  /** Where the state lives with these settings and workers: every worker is forked with it. */
  readonly placement: Placement;
}

/** How a worker's start ended: it listens, or it exited first. */
export type Started = { readonly ok: true } | { readonly ok: false; readonly code: number | null; readonly signal: string | null };

/** A worker as the primary knows it. */
export interface Member {
  readonly worker: SpawnedWorker;
  /** The worker's id (node:cluster's, from 1). */
  readonly id: number;
  readonly pid: number;
  /** The primary's port to it. */
  readonly port: Port;
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
  /**
   * Puts `settings` in force (replacements are forked with them), rolling to them when `rolling`
   * is given (then a death of one of its workers fails the roll: `failure`), or undoing a roll.
   */
  inForce(settings: Generation, rolling: Generation | undefined): void;
  /** Why the roll under way must stop: a worker it started died after it listened. */
  failure(): string | undefined;
  /** The workers that listen, in the order they were forked. */
  listening(): Member[];
  /** False once the gateway is stopping. */
  running(): boolean;
}

/** What a worker's exit said, for the log. */
export const exitFields = (member: Member, code: number | null, signal: string | null) => ({ worker: member.id, pid: member.pid, code, signal });

/** `exit code 2`, or the signal's name. */
export const howItExited = (code: number | null, signal: string | null): string => (signal === null ? `exit code ${code}` : signal);

/** Resolves with the outcome of a start, or `timeout` (the worker is then killed). */
export async function startedWithin(member: Member, timeoutMs: number): Promise<Started | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const result = await Promise.race([member.started, timeout]);
  clearTimeout(timer);
  if (result === 'timeout') member.worker.kill('SIGKILL');
  return result;
}

/**
 * Resolves once every one of `members` listens (`undefined`), or with the exit code the gateway
 * must stop with when one exits first: 2 for invalid settings or files (`exitWithProblems`), 1 for
 * a listen failure; a signal or a clean exit before listening counts as a failure too.
 */
export async function allListening(members: readonly Member[]): Promise<number | undefined> {
  return new Promise((resolve) => {
    let waiting = members.length;
    for (const member of members) {
      void member.started.then((started) => {
        if (!started.ok) resolve(started.code !== null && started.code !== 0 ? started.code : 1);
        else if (--waiting === 0) resolve(undefined);
      });
    }
  });
}
