import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { RedisClient } from '../../redis/index.js';

/**
 * A request refused only for units leased and not given back is decided again after each of these
 * waits (ms): about half a second in all, which a holder that is alive needs a few ms of.
 */
export const HELD_WAITS_MS: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

export interface LeaseRecall {
  /** This process, as the holder of the leases its calls ask for and give back. */
  readonly holder: string;
  /** Asks every other process for its lease of `subject`, if it holds one (one question out at a time). */
  ask(subject: string): void;
}

/**
 * Refusals that units leased and not given back account for (`lease-record-lua.ts`): the refused
 * process publishes the account on `channel`, and every process that holds a lease of it gives it
 * back at once (`onRecall` returns the units through the next call). Only a process with leases
 * listens (`onRecall` given); any process may ask.
 */
export function createLeaseRecall(redis: RedisClient, channel: string, onRecall?: (subject: string) => void): LeaseRecall {
  const holder = randomBytes(9).toString('base64url');
  const asking = new Set<string>();
  if (onRecall !== undefined) {
    redis.subscribe(channel, (message) => {
      try {
        const [from, subject] = JSON.parse(message) as unknown[];
        if (from !== holder && typeof subject === 'string') onRecall(subject);
      } catch {
        // Not a recall: nothing to give back.
      }
    });
  }
  return {
    holder,
    ask(subject) {
      if (asking.has(subject)) return;
      asking.add(subject);
      // A recall lost costs the wait only: the lease ends within a bucket and is given back then.
      redis
        .publish(channel, JSON.stringify([holder, subject]))
        .catch(() => {})
        .finally(() => asking.delete(subject));
    },
  };
}

/**
 * What a refused request gets when units leased and not given back were all that refused it
 * (`held`): their holders are asked for them, and it is decided again (`again`) after each of
 * `HELD_WAITS_MS`, until it is not held. Still held after the last, it is answered as the refusal
 * it is, which counted no strike.
 */
export async function untilNotHeld<T extends object>(first: T, again: () => Promise<T>, ask: () => void): Promise<T> {
  let outcome = first;
  for (const ms of HELD_WAITS_MS) {
    if (!('held' in outcome) || outcome.held !== true) return outcome;
    ask();
    await delay(ms);
    outcome = await again();
  }
  return outcome;
}
