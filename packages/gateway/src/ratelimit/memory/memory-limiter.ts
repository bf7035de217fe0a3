import { createCalendar } from '../calendar.js';
import { decision, type RateDecision, type WindowReading } from '../decision.js';
import type { Limiter, LimitRequest } from '../limiter.js';
import { isMonth, type Policy } from '../policy.js';
import { clearWindow, emptyWindow, type WindowState } from './sliding-window.js';
import { DEFAULT_MAX_ADDRESSES, type MemoryLimiter, type MemoryLimiterOptions } from './memory-limiter-api.js';
import { combined, refusalOf, type Counted } from './refusal.js';
import { bring, charge, lengthOf, resetOf } from './window-state.js';

interface Strikes {
  count: number;
  expiresAt: number;
}

/** One subject's windows, by name, and when a request last touched them. */
interface Entry {
  minute: WindowState | undefined;
  day: WindowState | undefined;
  month: WindowState | undefined;
  touched: number;
  /** How long it is kept after `touched`: as long as its longest window. */
  keptMs: number;
}

const SWEEP_EVERY = 10_000;
/** How long a month's counter is kept after its last use: past the longest month, plus a day. */
const MONTH_KEPT_MS = 32 * 86_400_000;

export function createMemoryLimiter(options: MemoryLimiterOptions = {}): MemoryLimiter {
  const now = options.now ?? Date.now;
  const share = options.share ?? 1;
  const calendar = options.calendar ?? createCalendar();
  const maxAddresses = options.maxAddresses ?? DEFAULT_MAX_ADDRESSES;
  // Two tables: the addresses' in order of last use (a touch moves one to the end), so the one
  // least recently seen is the first key; everything else, which is never evicted.
  const subjects = new Map<string, Entry>();
  const addresses = new Map<string, Entry>();
  const bans = new Map<string, number>();
  const strikes = new Map<string, Strikes>();
  let checks = 0;

  /** Forgets what nobody touched for longer than its window: memory stays bounded by activity. */
  function sweep(at: number): void {
    for (const table of [subjects, addresses]) for (const [key, entry] of table) if (at - entry.touched > entry.keptMs) table.delete(key);
    for (const [key, until] of bans) if (until <= at) bans.delete(key);
    for (const [key, entry] of strikes) if (entry.expiresAt <= at) strikes.delete(key);
  }

  function scaled(policy: Policy): Policy {
    if (share === 1) return policy;
    return { ...policy, windows: policy.windows.map((w) => ({ ...w, limit: Math.floor(w.limit * share) })) };
  }

  /**
   * Forgets the address least recently seen, and returns its entry emptied, for the next address:
   * under a flood of new addresses no entry is left for the garbage collector, which would let
   * the heap grow (entries that lived long enough to be promoted are collected late).
   */
  function evictOldest(): Entry {
    const [oldest, entry] = addresses.entries().next().value as [string, Entry];
    addresses.delete(oldest);
    for (const state of [entry.minute, entry.day, entry.month]) if (state !== undefined) clearWindow(state);
    return entry;
  }

  /** The subject's entry, touched at `at` (made when new; an address moved to the end of its table). */
  function touch(subject: string, anonymous: boolean, at: number): Entry {
    const table = anonymous ? addresses : subjects;
    let entry = table.get(subject);
    if (entry === undefined) {
      if (anonymous && addresses.size >= maxAddresses) entry = evictOldest();
      else entry = { minute: undefined, day: undefined, month: undefined, touched: at, keptMs: 0 };
    } else if (anonymous) {
      addresses.delete(subject);
    } else {
      entry.touched = at;
      return entry;
    }
    table.set(subject, entry);
    entry.touched = at;
    return entry;
  }

  /**
   * A subject's windows brought to `at`. For a peek, copies: dropping what left the window is the
   * only change it would make, and it makes none.
   */
  function countedOf(subject: string, anonymous: boolean, policy: Policy, at: number, peek: boolean, layer: number, layerName?: string): Counted[] {
    const entry = peek ? (anonymous ? addresses : subjects).get(subject) : touch(subject, anonymous, at);
    return policy.windows.map((window) => {
      let state = entry?.[window.name];
      if (peek) {
        state = state === undefined ? emptyWindow() : { ...state, counts: state.counts.slice() };
      } else if (state === undefined) {
        state = (entry as Entry)[window.name] = emptyWindow();
        const keptMs = isMonth(window) ? MONTH_KEPT_MS : window.windowMs;
        if (keptMs > (entry as Entry).keptMs) (entry as Entry).keptMs = keptMs;
      }
      return { window, state, position: bring(window, state, at, calendar), layer, layerName };
    });
  }

  function readingOf(c: Counted, at: number): WindowReading {
    const reading: { -readonly [F in keyof WindowReading]: WindowReading[F] } = {
      name: c.window.name,
      limit: c.window.limit,
      windowMs: lengthOf(c.window, c.state, c.position),
      remaining: Math.max(0, c.window.limit - c.state.total),
      resetAt: resetOf(c.window, c.state, c.position, at),
    };
    if (isMonth(c.window)) reading.kind = 'month';
    if (c.layerName !== undefined) reading.layer = c.layerName;
    return reading;
  }

  return {
    seed(request, used) {
      const at = now();
      for (const { window, state, position } of countedOf(request.subject, request.policy.anonymous === true, scaled(request.policy), at, false, 0)) {
        const target = Math.min(window.limit, Math.ceil((used.get(window.name) ?? 0) * share));
        if (target > state.total) charge(state, position, target - state.total);
      }
    },
    async check(request: LimitRequest): Promise<RateDecision> {
      const at = now();
      const peek = request.peek === true;
      if (!peek && ++checks % SWEEP_EVERY === 0) sweep(at);
      const policy = scaled(request.policy);
      const cost = request.cost ?? 1;
      const shadow = request.shadow === true;
      const counted = countedOf(request.subject, policy.anonymous === true, policy, at, peek, 0);
      if (request.layers !== undefined) {
        request.layers.forEach((layer, i) => counted.push(...countedOf(layer.subject, false, scaled(layer.policy), at, peek, i + 1, layer.policy.name)));
      }
      const made = (kind: 'allowed' | 'limited' | 'banned', retryAt: number | undefined, binding?: Counted, inShadow = false) => {
        const windows = counted.map((c) => readingOf(c, at));
        const bound = binding === undefined ? undefined : windows[counted.indexOf(binding)];
        return decision(kind, 'process', { policy, windows, retryAt, now: at, binding: bound, shadow: inShadow });
      };

      const bannedUntil = request.keyId === undefined ? undefined : bans.get(request.keyId);
      const banned = bannedUntil !== undefined && bannedUntil > at;
      if (banned && !shadow) return made('banned', bannedUntil);

      // Per layer kind: the refusing windows' latest retry (`undefined`: never) and which window it
      // is. The plan counts units (the operation's cost); a ceiling counts requests.
      const own = refusalOf(counted, cost, true);
      const others = request.layers === undefined || request.layers.length === 0 ? undefined : refusalOf(counted, 1, false);
      const ownRefuses = banned || own !== undefined;
      const enforced = shadow ? others : combined(own, others);
      if (enforced !== undefined) {
        if (peek || own === undefined || shadow || request.keyId === undefined || policy.ban === undefined) {
          return made('limited', enforced.retryAt, enforced.binding);
        }
        const ban = policy.ban;
        let entry = strikes.get(request.keyId);
        if (entry === undefined || entry.expiresAt <= at) strikes.set(request.keyId, (entry = { count: 0, expiresAt: at + ban.strikeWindowMs }));
        entry.count += 1;
        if (entry.count >= ban.strikes) {
          strikes.delete(request.keyId);
          bans.set(request.keyId, at + ban.banMs);
          return made('banned', at + ban.banMs);
        }
        return made('limited', enforced.retryAt, enforced.binding);
      }
      const inShadow = shadow && ownRefuses;
      if (!peek) for (const c of counted) if (!(inShadow && c.layer === 0)) charge(c.state, c.position, c.layer === 0 ? cost : 1);
      return made('allowed', undefined, inShadow ? own?.binding : undefined, inShadow);
    },
    liftBan(keyId) {
      const until = bans.get(keyId);
      bans.delete(keyId);
      strikes.delete(keyId);
      return until !== undefined && until > now();
    },
    size: () => subjects.size + addresses.size,
    addresses: () => addresses.size,
  };
}
