import { isIP } from 'node:net';

/** What limits need of a verified key (auth's `Identity` has it): who pays, which key, on what terms. */
export interface KeyHolder {
  /** The account: its windows count every key it holds. */
  readonly subject: string;
  /** The key: bans apply to it. */
  readonly keyId: string;
  /** The plan the key names (any name the plans file has). */
  readonly plan: string;
  /** Limits signed into the key. */
  readonly limits?: { readonly minute?: number | undefined; readonly day?: number | undefined } | undefined;
}

/**
 * Whose counters a decision reads and charges: an `account` (with the key whose bans apply), a
 * client address without a valid key (`anonymous`), or a key's own `usage` endpoint limit.
 */
export type LimitKey =
  | { readonly scope: 'account'; readonly id: string; readonly keyId: string }
  | { readonly scope: 'anonymous'; readonly id: string }
  | { readonly scope: 'usage'; readonly id: string };

export const accountKey = (holder: KeyHolder): LimitKey => ({ scope: 'account', id: holder.subject, keyId: holder.keyId });
export const anonymousKey = (ip: string): LimitKey => ({ scope: 'anonymous', id: ip });
export const usageKey = (holder: KeyHolder): LimitKey => ({ scope: 'usage', id: holder.keyId });

/**
 * The prefixes of the subjects that are not accounts, one per kind, and the prefix that escapes an
 * account named like one of them. Every subject the gateway counts under is an account's or begins
 * with one of these: a kind of subject added later gets its prefix here, and accounts keep out of it.
 */
export const SUBJECT_PREFIXES = {
  /** A client address without a valid key (`ip:203.0.113.7`, `ip:2001:db8:0:1::/64`). */
  anonymous: 'ip:',
  /** An operation's ceiling, shared by every caller (`op:createPet`). */
  ceiling: 'op:',
  /** A key's own limit on `GET /v1/usage` (`usage:<jti>`). */
  usage: 'usage:',
  /** An account whose name begins with one of these prefixes (`acct:op:createPet`). */
  escapedAccount: 'acct:',
} as const;
const RESERVED_PREFIXES: readonly string[] = Object.values(SUBJECT_PREFIXES);

/**
 * An account's subject: its name as it is (so the counters, quotas and bans that Redis holds under
 * it carry over from releases before), unless the name begins with a reserved prefix: then
 * `acct:` and the name, so an account `op:createPet` never spends that operation's ceiling.
 */
export function accountSubject(account: string): string {
  for (const prefix of RESERVED_PREFIXES) if (account.startsWith(prefix)) return SUBJECT_PREFIXES.escapedAccount + account;
  return account;
}

/** The subject of an operation's ceiling. */
export const ceilingSubject = (operationId: string): string => SUBJECT_PREFIXES.ceiling + operationId;

/**
 * The key's storage name (the limiter's `subject`): the account (`accountSubject`), `ip:` and the
 * address (an IPv6 client per /64: one host has a whole /64), `usage:` and the key id. These names
 * are what Redis holds: changing one would start every counter again.
 */
export function limitSubject(key: LimitKey): string {
  switch (key.scope) {
    case 'account':
      return accountSubject(key.id);
    case 'anonymous':
      return anonymousSubject(key.id);
    case 'usage':
      return SUBJECT_PREFIXES.usage + key.id;
  }
}

/** The client's rate-limit subject: its IPv4 address, or its IPv6 /64. */
export function anonymousSubject(ip: string): string {
  if (isIP(ip) !== 6) return SUBJECT_PREFIXES.anonymous + ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${SUBJECT_PREFIXES.anonymous}${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
