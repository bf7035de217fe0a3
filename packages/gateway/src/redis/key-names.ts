/** `{` and `}` would end a hash tag early; a subject keeps them, escaped. */
function tag(subject: string): string {
  return subject.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Redis key names of the gateway, under one prefix. */
export function redisKeyNames(prefix: string) {
  return {
    /** SET of revoked key ids (`jti`). */
    revoked: `${prefix}:revoked`,
    /** Channel on which each revocation is published (its `jti`), so copies learn it at once. */
    revokedChannel: `${prefix}:revoked`,
    /**
     * Channel on which each gateway process says it has a revocation (its `jti`) in its copy of the
     * deny-list: the revoking side waits for every process it told (`revokeInRedis`).
     */
    revokedAcks: `${prefix}:revoked:acks`,
    /**
     * HASH of key ids refused only from a date (`keys reroll --grace`): `jti` → ms since the epoch.
     * Every gateway moves a key into `revoked` when its date comes (auth/revocations.ts).
     */
    revokedLater: `${prefix}:revoked:later`,
    /**
     * Channel on which a gateway process refused for units leased to others and not given back asks
     * for them (`[holder, subject]`, JSON): each process holding a lease of the account gives it back.
     */
    leaseRecalls: `${prefix}:leases:recall`,
    /** HASH of the accounts seen on a day (`YYYY-MM-DD`, `QUOTA_TIME_ZONE`): account → the key last seen (admin/ledger/). */
    seenOn: (date: string) => `${prefix}:admin:seen:${date}`,
    /** HASH of every key seen: `jti` → its account (bounded by the keys the operator issued). */
    keyAccounts: `${prefix}:admin:keys`,
    /** HASH of an account's keys seen in the last weeks: `jti` → what it says (its plan, its limits). */
    accountKeys: (subject: string) => `${prefix}:{${tag(subject)}}:keys`,
    /** HASH of an account's refusals on a day that plans in shadow would have made: plan → count. */
    accountShadow: (subject: string, date: string) => `${prefix}:{${tag(subject)}}:shadow:${date}`,
    /**
     * One account's rate-limit counters, bans and strikes, one MessagePack string (expires when
     * idle; older releases kept a hash, converted on first use); the account
     * (its subject, `limitSubject`: `sub`, `ip:<address>`, `op:<operationId>`…) is its hash tag, so the script that uses it
     * runs on Redis Cluster.
     */
    limits: (subject: string) => `${prefix}:{${tag(subject)}}:rl`,
  };
}
