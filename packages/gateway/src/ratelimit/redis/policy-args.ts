import { isMonth, type Policy } from '../policy.js';

/** How a call sends policies (`redis-call.ts`): each once, as ARGV fields that `call-header-lua.ts` reads. */

/** The letter a window's counter is kept under in a key's state: m, d, and M for the month. */
const LETTERS = { minute: 'm', day: 'd', month: 'M' } as const;

/** Policies as the script reads them, by policy: the plans hand out the same object while nothing changed. */
const ENCODED = new WeakMap<Policy, { readonly fields: readonly (string | number)[]; readonly signature: string }>();

/** A policy as the script reads it: ban settings, then each window; and its text, to find it again in a call. */
export function encoded(policy: Policy): { readonly fields: readonly (string | number)[]; readonly signature: string } {
  let found = ENCODED.get(policy);
  if (found !== undefined) return found;
  const ban = policy.ban;
  const fields: (string | number)[] = [ban?.strikes ?? 0, ban?.strikeWindowMs ?? 0, ban?.banMs ?? 0, policy.windows.length];
  for (const window of policy.windows) {
    // A month goes as window ms 0 and buckets 0: the script reads buckets 0 as a month.
    if (isMonth(window)) fields.push(LETTERS[window.name], window.limit, 0, 0);
    else fields.push(LETTERS[window.name], window.limit, window.windowMs, window.buckets);
  }
  ENCODED.set(policy, (found = { fields, signature: fields.join(',') }));
  return found;
}
