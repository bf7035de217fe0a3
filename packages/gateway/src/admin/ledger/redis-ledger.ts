import { PlanName } from '../../identity/index.js';
import { accountSubject } from '../../ratelimit/limit-key.js';
import { redisKeyNames, type RedisClient } from '../../redis/index.js';
import { daysBack, InvalidCursorError, KEPT_DAYS, PartlyWrittenError, type KeyRecord, type Ledger, type LedgerAccount, type LedgerNotes } from './ledger.js';

const DAY_MS = 86_400_000;
/** A day's list of accounts is kept through the month after it: billing reads the month's. */
const SEEN_KEPT_MS = (KEPT_DAYS + 1) * DAY_MS;
const SHADOW_KEPT_MS = 2 * DAY_MS;
/** HSCAN calls a page may make at most: a search that matches little answers with a partial page and a cursor. */
const MAX_SCANS = 100;
/**
 * HSCAN's COUNT, the same for every page whatever its limit: a page that ends inside a call's
 * entries is continued by the same call again, which must give the same entries.
 */
const SCAN_COUNT = 100;

/** A glob that matches `text` literally (HSCAN's MATCH). */
const literal = (text: string) => text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);

/** A key record as a hash keeps it (the account is the hash's). */
function encoded(record: KeyRecord): string {
  return JSON.stringify({ plan: record.plan, limits: record.limits, expiresAt: record.expiresAt, seen: record.seen });
}

function decoded(account: string, keyId: string, text: string): KeyRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<KeyRecord>;
    if (!PlanName.safeParse(value.plan).success || typeof value.seen !== 'string') return undefined;
    return { account, keyId, plan: value.plan as string, limits: value.limits, expiresAt: value.expiresAt, seen: value.seen };
  } catch {
    return undefined;
  }
}

/**
 * The ledger in Redis, shared by every instance (the keys are in `redisKeyNames`): per day, a hash
 * of the accounts seen and the key each used last (kept a month and some, for billing); per
 * account, a hash of its keys (what each names, when it was last seen; kept while one is seen
 * within `KEPT_DAYS`) and per day a hash of its shadow refusals by plan; and one hash of every key
 * seen with its account. An account's hashes carry its hash tag, beside its limits. Pages follow
 * HSCAN's order (an account may appear on two pages while the hash grows); a cursor is HSCAN's and
 * how many of that call's entries the page before took.
 */
export function createRedisLedger(redis: RedisClient, prefix: string): Ledger {
  const names = redisKeyNames(prefix);
  const keysOf = (account: string) => names.accountKeys(accountSubject(account));
  const shadowOf = (account: string, day: string) => names.accountShadow(accountSubject(account), day);

  async function entry(day: string, account: string, lastKey: string): Promise<LedgerAccount> {
    const [records, refusals] = await Promise.all([redis.hGetAll(keysOf(account)), redis.hGetAll(shadowOf(account, day))]);
    const oldest = daysBack(day, KEPT_DAYS).at(-1) as string;
    const keys = Object.entries(records)
      .map(([keyId, text]) => decoded(account, keyId, text))
      .filter((record): record is KeyRecord => record !== undefined && record.seen >= oldest);
    return { account, lastKey, keys, shadowRefusals: Object.fromEntries(Object.entries(refusals).map(([plan, count]) => [plan, Number(count)])) };
  }

  return {
    async write(notes) {
      const { day, sightings, shadowRefusals } = notes;
      // Each note stands alone: one that fails is written again later, and only it (a refusal's
      // count written twice would count twice). The day's list and the keys' index serve every sighting.
      const settled = (writes: Promise<unknown>[]) =>
        Promise.all(writes).then(
          () => undefined,
          (error: unknown) => error ?? new Error('failed'),
        );
      let shared: Promise<unknown> = Promise.resolve(undefined);
      if (sightings.length > 0) {
        const seen = names.seenOn(day);
        shared = settled([
          redis.hSet(seen, Object.fromEntries(sightings.map((record) => [record.account, record.keyId]))),
          redis.pExpire(seen, SEEN_KEPT_MS),
          redis.hSet(names.keyAccounts, Object.fromEntries(sightings.map((record) => [record.keyId, record.account]))),
        ]);
      }
      const sighted = sightings.map((record) => {
        const key = keysOf(record.account);
        return settled([redis.hSet(key, { [record.keyId]: encoded(record) }), redis.pExpire(key, SEEN_KEPT_MS)]);
      });
      // A refusal counted is written, its expiry set again by the next write of that account's day.
      const counted = shadowRefusals.map(({ account, plan, count }) => {
        const key = shadowOf(account, day);
        void redis.pExpire(key, SHADOW_KEPT_MS).catch(() => {});
        return settled([redis.hIncrBy(key, plan, count)]);
      });
      const [sharedError, sightingErrors, refusalErrors] = await Promise.all([shared, Promise.all(sighted), Promise.all(counted)]);
      const unwritten: LedgerNotes = {
        day,
        sightings: sightings.filter((_, i) => sharedError !== undefined || sightingErrors[i] !== undefined),
        shadowRefusals: shadowRefusals.filter((_, i) => refusalErrors[i] !== undefined),
      };
      if (unwritten.sightings.length === 0 && unwritten.shadowRefusals.length === 0) return;
      throw new PartlyWrittenError(unwritten, sharedError ?? sightingErrors.find((e) => e !== undefined) ?? refusalErrors.find((e) => e !== undefined));
    },
    async page(day, { cursor, limit, search }) {
      let [scan, skip] = ['0', 0];
      if (cursor !== undefined) {
        const parts = /^r:(\d+):(\d+)$/.exec(cursor);
        if (parts === null) throw new InvalidCursorError();
        [scan, skip] = [parts[1] as string, Number(parts[2])];
      }
      const found: [string, string][] = [];
      let next: string | undefined;
      for (let calls = 0; ; calls++) {
        const { next: after, entries } = await redis.hScan(names.seenOn(day), scan, SCAN_COUNT, search === undefined ? undefined : `*${literal(search)}*`);
        const room = limit - found.length;
        const taken = entries.slice(skip, skip + room);
        found.push(...taken);
        if (skip + taken.length < entries.length) {
          // The call gave more than the page holds: the next page asks it again and skips what this one took.
          next = `r:${scan}:${skip + taken.length}`;
          break;
        }
        [scan, skip] = [after, 0];
        if (scan === '0') break;
        if (found.length === limit || calls + 1 >= MAX_SCANS) {
          next = `r:${scan}:0`;
          break;
        }
      }
      return { accounts: await Promise.all(found.map(([account, keyId]) => entry(day, account, keyId))), next };
    },
    async account(day, account) {
      const lastKey = await redis.hGet(names.seenOn(day), account);
      return lastKey === undefined ? undefined : entry(day, account, lastKey);
    },
    async accountOfKey(keyId) {
      const account = await redis.hGet(names.keyAccounts, keyId);
      // Only while its record is kept, as in process.
      if (account === undefined || (await redis.hGet(keysOf(account), keyId)) === undefined) return undefined;
      return account;
    },
    async seenOn(days) {
      const found = new Map<string, string>();
      for (const day of days) {
        let scan = '0';
        do {
          const { next, entries } = await redis.hScan(names.seenOn(day), scan, SCAN_COUNT * 10);
          for (const [account] of entries) if (!found.has(account)) found.set(account, day);
          scan = next;
        } while (scan !== '0');
      }
      return found;
    },
  };
}
