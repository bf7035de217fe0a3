import type { IncomingMessage } from 'node:http';
import { isIP, type BlockList } from 'node:net';

/** Who sent the request, as far as the gateway can trust it. */
export interface ClientView {
  /** The client's address: the peer, or the first untrusted hop in `X-Forwarded-For`. */
  readonly ip: string;
  /** The `X-Forwarded-For` chain to send upstream, ending with the peer. */
  readonly forwardedFor: string;
  readonly proto: 'http' | 'https';
  readonly host: string;
}

/** `::ffff:10.0.0.1` → `10.0.0.1`, so IPv4 rules apply to IPv4 clients on dual-stack sockets. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function isTrusted(trust: BlockList | undefined, address: string): boolean {
  if (trust === undefined) return false;
  const family = isIP(address);
  return family !== 0 && trust.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client as seen through trusted proxies (`TRUST_PROXY`). A peer that is not trusted is the
 * client, and whatever `X-Forwarded-*` it sent is ignored; through trusted peers the chain is walked
 * from the right to the first address that is not trusted.
 */
export function clientView(req: IncomingMessage, trust: BlockList | undefined): ClientView {
  const peer = plainAddress(req.socket.remoteAddress ?? '');
  const encrypted = 'encrypted' in req.socket && req.socket.encrypted === true;
  const ownHost = req.headers.host ?? '';
  if (trust === undefined || !isTrusted(trust, peer)) {
    return { ip: peer, forwardedFor: peer, proto: encrypted ? 'https' : 'http', host: ownHost };
  }
  const header = req.headers['x-forwarded-for'];
  const chain = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => plainAddress(hop.trim()))
    .filter((hop) => isIP(hop) !== 0);
  let ip = peer;
  for (let i = chain.length - 1; i >= 0 && isTrusted(trust, ip); i--) ip = chain[i] as string;
  const proto = req.headers['x-forwarded-proto'];
  const host = req.headers['x-forwarded-host'];
  return {
    ip,
    forwardedFor: [...chain, peer].join(', '),
    proto: proto === 'https' || proto === 'http' ? proto : encrypted ? 'https' : 'http',
    host: typeof host === 'string' && host !== '' ? host : ownHost,
  };
}
