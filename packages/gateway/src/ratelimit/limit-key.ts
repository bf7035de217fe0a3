import { isIP } from 'node:net';

/** What limits need of a verified key (auth's `Identity` has it): who pays, which key, on what terms. */
export interface KeyHolder {
  /** The account: its windows count every key it holds. */
  readonly subject: string;
  /** The key: bans apply to it. */
  readonly keyId: string;
  readonly plan: 'free' | 'pro' | 'business' | 'enterprise';
  /** Limits signed into an enterprise key. */
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
 * The key's storage name (the limiter's `subject`): the account as it is, `ip:` and the address
 * (an IPv6 client per /64: one host has a whole /64), `usage:` and the key id. These names are
 * what Redis holds: changing one would start every counter again.
 */
export function limitSubject(key: LimitKey): string {
  switch (key.scope) {
    case 'account':
      return key.id;
    case 'anonymous':
      return anonymousSubject(key.id);
    case 'usage':
      return `usage:${key.id}`;
  }
}

/** The client's rate-limit subject: its IPv4 address, or its IPv6 /64. */
export function anonymousSubject(ip: string): string {
  if (isIP(ip) !== 6) return `ip:${ip}`;
  const [head = '', tail = ''] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `ip:${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
