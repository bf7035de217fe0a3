import type { RateDecision } from '../decision.js';
import type { LimitRequest } from '../limiter.js';
import { DEFAULT_MAX_ADDRESSES } from '../memory/index.js';
import { isMonth, type Policy } from '../policy.js';

/** Per subject, what Redis had counted in each window still open, by window name. */
export type UsedBySubject = Record<string, Record<string, number>>;

/**
 * What Redis said last of each account, as this process saw it (the `local` failure policy's
 * seed): the windows of its last answer for each subject, and when it came (this process's clock).
 */
export interface RedisViews {
  remember(request: LimitRequest, decided: RateDecision, at: number): void;
  /** What Redis had counted for each of `subjects` in the windows still open at `at`; subjects never seen are left out. */
  usedAt(subjects: readonly string[], at: number): UsedBySubject;
}

interface View {
  readonly at: number;
  readonly windows: RateDecision['windows'];
}

/**
 * An anonymous address's last answer, as numbers in an object that is used again for the next
 * address once this one is forgotten: a flood of new addresses leaves the collector nothing that
 * lived long enough to be promoted (such garbage is collected late, and lets the heap grow).
 */
interface AddressView {
  at: number;
  policy: Policy;
  /** By the policy's windows, what was counted (-1 when the answer did not read that window). */
  readonly used: number[];
}

/** Accounts whose last Redis answer is kept; past it the book starts again (degraded seeds then lost). */
const MAX_VIEWS = 100_000;

export interface RedisViewsOptions {
  /**
   * Anonymous addresses whose last answer is kept (`RATE_LIMIT_MAX_ADDRESSES`, as the local
   * fallback's own table): the address least recently seen is forgotten first, so a flood of
   * new addresses costs a bounded book and forgets no account.
   */
  readonly maxAddresses?: number;
}

/** What `decided` counted in the window named `name` (-1 if it did not read it); `at` is its place when the policy's order holds. */
function usedIn(decided: RateDecision, name: string, at: number): number {
  const window = decided.windows[at]?.name === name ? decided.windows[at] : decided.windows.find((reading) => reading.name === name);
  return window === undefined ? -1 : window.limit - window.remaining;
}

export function createRedisViews(options: RedisViewsOptions = {}): RedisViews {
  const maxAddresses = options.maxAddresses ?? DEFAULT_MAX_ADDRESSES;
  const views = new Map<string, View>();
  /** In order of last answer: a new one moves its address to the end. */
  const addresses = new Map<string, AddressView>();

  function keep(subject: string, view: View): void {
    if (views.size >= MAX_VIEWS) views.clear();
    views.set(subject, view);
  }

  function keepAddress(subject: string, policy: Policy, decided: RateDecision, at: number): void {
    let view = addresses.get(subject);
    if (view !== undefined) addresses.delete(subject);
    else if (addresses.size >= maxAddresses) {
      const [oldest, reused] = addresses.entries().next().value as [string, AddressView];
      addresses.delete(oldest);
      view = reused;
    }
    view ??= { at, policy, used: [] };
    view.at = at;
    view.policy = policy;
    view.used.length = policy.windows.length;
    policy.windows.forEach((window, i) => (view.used[i] = usedIn(decided, window.name, i)));
    addresses.set(subject, view);
  }

  function addressUsedAt(view: AddressView, at: number): Record<string, number> {
    const used: Record<string, number> = {};
    view.policy.windows.forEach((window, i) => {
      const counted = view.used[i] ?? -1;
      if (counted >= 0 && (isMonth(window) || at - view.at < window.windowMs)) used[window.name] = counted;
    });
    return used;
  }

  return {
    remember(request, decided, at) {
      if (request.policy.anonymous === true) return keepAddress(request.subject, request.policy, decided, at);
      const layers = request.layers ?? [];
      // Without layers, every window is the account's: no copy to make on each request.
      keep(request.subject, { at, windows: layers.length === 0 ? decided.windows : decided.windows.filter((window) => window.layer === undefined) });
      for (const layer of layers) keep(layer.subject, { at, windows: decided.windows.filter((window) => window.layer === layer.policy.name) });
    },
    usedAt(subjects, at) {
      const found: UsedBySubject = {};
      for (const subject of subjects) {
        const view = views.get(subject);
        const address = view === undefined ? addresses.get(subject) : undefined;
        if (address !== undefined) found[subject] = addressUsedAt(address, at);
        if (view === undefined) continue;
        const used: Record<string, number> = {};
        for (const window of view.windows) if (isMonth(window) || at - view.at < window.windowMs) used[window.name] = window.limit - window.remaining;
        found[subject] = used;
      }
      return found;
    },
  };
}

/** `into` with each window raised to what `other` says, where it says more. */
export function mergeUsed(into: UsedBySubject, other: UsedBySubject): UsedBySubject {
  for (const [subject, windows] of Object.entries(other)) {
    if (subject === '__proto__') continue;
    const mine = (into[subject] ??= {});
    for (const [name, used] of Object.entries(windows)) if (typeof used === 'number' && used > (mine[name] ?? 0)) mine[name] = used;
  }
  return into;
}
