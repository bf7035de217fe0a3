import { publishRedisDegraded } from '../events/index.js';
import { createBatch, type RedisClient } from '../redis/index.js';
import { createPendingRevocations } from './pending-revocations.js';
import { RevocationsUnavailableError, type RevocationList } from './revocations.js';

export interface RedisRevocationsOptions {
  readonly key: string;
  /**
   * The channel each revocation is published on (`keys revoke` does): the copy learns it at once,
   * so a Redis that dies right after a revocation cannot take it along. Without it, the copy knows
   * only what its last refresh read.
   */
  readonly channel?: string;
  /**
   * The channel on which this process says it has each revocation published on `channel`
   * (`revokeInRedis` waits for it). Given, the copy can also vouch for a key between calls
   * (`knownNotRevoked`); on a Redis Cluster, where a publisher cannot count who it told, it is left out.
   */
  readonly acks?: string;
  /**
   * The hash of keys refused only from a date (`revokedLater`, written by `keys reroll --grace`):
   * each is moved into the deny-list when its date comes (see `createPendingRevocations`).
   */
  readonly later?: string;
  /** How often the local copy used during Redis outages is refreshed. */
  readonly snapshotEveryMs?: number;
  /** How long a batch of checks stays open (see `createBatch`): 0 ends it with the event-loop turn. */
  readonly batchWindowMs?: number;
  /** Each time a whole copy of the deny-list has been read, with its size. */
  readonly onCopied?: (size: number) => void;
}

/** The Redis deny-list, with what the shared limiter needs when it asks Redis in its stead. */
export interface RedisRevocations extends RevocationList {
  /**
   * The answer of the local copy, for when Redis did not answer; throws
   * `RevocationsUnavailableError` while no copy was ever loaded (fail closed).
   */
  fromCopy(keyId: string): boolean;
  /** Redis said `keyId` is revoked: the copy keeps it, so an outage cannot bring it back to life. */
  remember(keyId: string): void;
  /**
   * True when the copy is sure the key is not revoked: it was read whole after its subscription
   * was last in place, has been listening since, and does not hold the key. A request answered
   * without Redis (a lease) relies on it; anything else leaves the request to Redis's own list.
   */
  knownNotRevoked(keyId: string): boolean;
  /**
   * True once a whole copy was read (from then on an outage is answered from it, not with 503s)
   * and, with a channel, once it listens for revocations.
   */
  copied(): boolean;
}

/**
 * A deny-list shared by every gateway instance, so a revocation made anywhere applies from the
 * very next request everywhere. The checks of one event-loop turn share one `SMISMEMBER`. While
 * Redis does not answer within its command budget, the last copy of the whole set (refreshed every
 * few seconds, and told of each revocation as it is published) answers instead; before a first
 * copy was loaded, nothing can answer, and the check
 * fails closed. With limits in Redis, the limiter asks in the same round trip as the limit
 * (`checkRevoked`) and this list serves only as its copy.
 */
export function createRedisRevocations(redis: RedisClient, options: RedisRevocationsOptions): RedisRevocations {
  let snapshot = new Set<string>();
  let loaded = false;
  let listening = options.channel === undefined;
  /** Counts the subscription's comings and goings; `sure` is the one a whole read followed. */
  let subscription = 0;
  let sure = -1;
  let subscribed = false;
  /** Per refresh under way, the ids learnt meanwhile: a page read before they were added lacks them. */
  const learning = new Set<Set<string>>();
  const remember = (keyId: string) => {
    snapshot.add(keyId);
    for (const learnt of learning) learnt.add(keyId);
  };
  const pending =
    options.later === undefined
      ? undefined
      : createPendingRevocations(redis, { key: options.key, later: options.later, channel: options.channel, onRevoked: remember });
  /** What the copy says: in the set, or past its date among the pending keys. */
  const inCopy = (keyId: string) => snapshot.has(keyId) || pending?.due(keyId) === true;
  const refresh = () => {
    void pending?.refresh();
    const learnt = new Set<string>();
    learning.add(learnt);
    // Any whole read begun while subscribed makes the copy sure, not only the one the subscription
    // started: that one fails when the subscriber connects before the client it reads with.
    const during = subscribed ? subscription : -1;
    return redis.sMembers(options.key).then(
      (members) => {
        learning.delete(learnt);
        snapshot = new Set(members);
        for (const keyId of learnt) snapshot.add(keyId);
        loaded = true;
        if (subscribed && during === subscription) sure = during;
        options.onCopied?.(snapshot.size);
        return true;
      },
      () => {
        learning.delete(learnt);
        return false;
      },
    );
  };
  // The client connects in the background: the first copy is read as soon as it is connected, and
  // again after each reconnection (the list may have changed while Redis was away). Not before:
  // a read while it is still connecting fails, and would report a healthy Redis as not answering.
  redis.onReady(() => void refresh());
  const timer = setInterval(refresh, options.snapshotEveryMs ?? 5000);
  timer.unref();
  const ask = createBatch<string, boolean>({
    send: (keyIds) => redis.sMisMember(options.key, keyIds),
    windowMs: options.batchWindowMs ?? 0,
    maxItems: 1024,
  });
  const fromCopy = (keyId: string) => {
    if (!loaded) throw new RevocationsUnavailableError(new Error('Redis did not answer and no copy of the deny-list was loaded yet'));
    return inCopy(keyId);
  };
  if (options.channel !== undefined) {
    const { acks } = options;
    redis.subscribe(
      options.channel,
      (keyId) => {
        remember(keyId);
        // Said only once the copy has it: the revoking side then knows this process refuses it.
        if (acks !== undefined) redis.publish(acks, keyId).catch(() => {});
      },
      () => {
        listening = true;
        subscribed = true;
        subscription++;
        // What was revoked while nobody listened is in a read made after the subscription is in place.
        void refresh();
      },
      () => {
        subscribed = false;
        subscription++;
      },
    );
  }
  return {
    async isRevoked(keyId) {
      try {
        const revoked = await ask(keyId);
        if (revoked) remember(keyId);
        return revoked;
      } catch (error) {
        publishRedisDegraded({ part: 'revocations', error });
        if (!loaded) throw new RevocationsUnavailableError(error);
        return inCopy(keyId);
      }
    },
    fromCopy,
    remember,
    knownNotRevoked: (keyId) => options.acks !== undefined && subscribed && sure === subscription && !inCopy(keyId),
    copied: () => loaded && listening,
    close() {
      clearInterval(timer);
      pending?.close();
    },
  };
}
