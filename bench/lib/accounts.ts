/*
 * Who sends the load (issue 40): one hot account, or many. A real API serves thousands of
 * customers, each far below the lease threshold, and there every request goes to Redis; one hot
 * account is answered mostly from leases. So each throughput scenario runs with each spread below,
 * and the load generators pick a key per request from a precomputed order of accounts.
 */

/** The spreads of accounts a throughput scenario is measured with. */
export type SpreadName = 'one' | 'uniform' | 'zipf';

export interface AccountSpread {
  readonly name: SpreadName;
  /** Appended to a scenario's name: `gateway-limits-redis@2000-uniform`. */
  readonly suffix: string;
  readonly label: string;
  /** How many accounts (one key each). */
  readonly accounts: number;
  /** The exponent of a Zipf spread: account k (from 1) is drawn with a weight of k^-s. */
  readonly zipfExponent?: number;
  /**
   * The plan the keys carry (the bench's plans file, `bench-keys.ts`). `pro` there allows 1,000 a
   * minute, under the 1,024 a window below which no lease is granted (docs/limits.md), and a day
   * never reached; `business` allows 10⁹ in both, so the head of a Zipf spread is never refused.
   */
  readonly plan: 'pro' | 'business';
}

/** Requests a minute the `pro` plan of the bench allows an account: under the lease threshold. */
export const UNIFORM_PLAN_MINUTE = 1000;

export const SPREADS: Readonly<Record<SpreadName, AccountSpread>> = {
  one: { name: 'one', suffix: '', label: 'one account', accounts: 1, plan: 'business' },
  uniform: {
    name: 'uniform',
    suffix: '@2000-uniform',
    label: '2,000 accounts, uniform, 1,000 a minute each (no leases)',
    accounts: 2000,
    plan: 'pro',
  },
  zipf: {
    name: 'zipf',
    suffix: '@100k-zipf',
    label: '100,000 accounts, Zipf s = 1.1, limits never reached',
    accounts: 100_000,
    zipfExponent: 1.1,
    plan: 'business',
  },
};

/** The spreads of a `--quick` run: the same, with a smaller Zipf population (signing 100,000 keys takes a while). */
export function spreadsFor(quick: boolean): Readonly<Record<SpreadName, AccountSpread>> {
  return quick ? { ...SPREADS, zipf: { ...SPREADS.zipf, accounts: 5000, label: '5,000 accounts, Zipf s = 1.1 (--quick)' } } : SPREADS;
}

/** Parses `--accounts one,uniform,zipf` (default: all three), in that order. */
export function parseSpreads(text: string | undefined): SpreadName[] {
  if (text === undefined) return ['one', 'uniform', 'zipf'];
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) if (!(name in SPREADS)) throw new Error(`--accounts: ${name} is none of ${Object.keys(SPREADS).join(', ')}`);
  return (['one', 'uniform', 'zipf'] as const).filter((name) => names.includes(name));
}

/** A seeded uniform random number in [0, 1) (mulberry32): the same order of accounts in every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A sampler of account indexes 0 … count−1 where index k is drawn with a weight of (k+1)^-s:
 * the cumulative weights once, then a binary search per draw.
 */
export function zipfSampler(count: number, exponent: number, random: () => number): () => number {
  if (!Number.isInteger(count) || count < 1) throw new Error(`a Zipf spread needs at least one account, not ${count}`);
  const cumulative = new Float64Array(count);
  let total = 0;
  for (let k = 0; k < count; k++) cumulative[k] = total += (k + 1) ** -exponent;
  return () => {
    const target = random() * total;
    let [low, high] = [0, count - 1];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((cumulative[middle] as number) > target) high = middle;
      else low = middle + 1;
    }
    return low;
  };
}

/**
 * The order in which the load generators send the accounts' keys: `length` draws of an account
 * index from `spread` (uniform, or Zipf), seeded, so every run and both generators send the same.
 */
export function drawOrder(spread: AccountSpread, length: number, seed = 40): Uint32Array {
  const random = seededRandom(seed);
  const draw = spread.zipfExponent === undefined ? () => Math.floor(random() * spread.accounts) : zipfSampler(spread.accounts, spread.zipfExponent, random);
  const order = new Uint32Array(length);
  for (let i = 0; i < length; i++) order[i] = draw();
  return order;
}

/** The share of `order`'s draws that went to its most drawn account: how hot the head is. */
export function headShare(order: Uint32Array): number {
  const counts = new Map<number, number>();
  for (const index of order) counts.set(index, (counts.get(index) ?? 0) + 1);
  return order.length === 0 ? 0 : Math.max(...counts.values()) / order.length;
}
