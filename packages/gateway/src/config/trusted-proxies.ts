import { BlockList, isIP } from 'node:net';

/** A BlockList of the trusted proxies (checked entries of `TRUST_PROXY`), for `X-Forwarded-For` decisions. */
export function trustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}
