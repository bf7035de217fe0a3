import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { adminError, writeAdminAnswer } from './admin-answer.js';

/** The host name of a `Host` header (`name:port`, `[v6]:port`, `1.2.3.4`), lower-cased, without a trailing dot. */
function hostNameOf(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') === -1 ? undefined : value.indexOf(']'));
  const colon = value.lastIndexOf(':');
  const name = colon !== -1 && /^\d*$/.test(value.slice(colon + 1)) ? value.slice(0, colon) : value;
  return name.replace(/\.$/, '');
}

/**
 * Whether the admin listener answers a request of `Host` header `header`: against DNS rebinding,
 * where a page of another site has its name point at this listener and reads `/metrics` or the
 * console's files. A browser then sends that site's name, which is none of the listener's own:
 * an address (no one rebinds an address), `localhost` and its subdomains, the name the listener
 * listens on (`METRICS_HOST`), and the names of `ADMIN_HOSTS`. A request without `Host` (HTTP/1.0)
 * comes from no browser, and is answered.
 */
export function answersHost(header: string | undefined, listenHost: string, extra: readonly string[]): boolean {
  if (header === undefined) return true;
  const name = hostNameOf(header);
  if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return true;
  return name === listenHost.toLowerCase().replace(/\.$/, '') || extra.includes(name);
}

/**
 * The admin listener's check of `Host`, before any path is answered (see `answersHost`): `true`
 * when it answered the request itself, with `421 misdirected_request`. `names` is read for every
 * request: a reload changes `ADMIN_HOSTS`.
 */
export function createHostCheck(names: () => { readonly host: string; readonly hosts: readonly string[] } | undefined) {
  return function refusedHost(req: IncomingMessage, res: ServerResponse): boolean {
    const listener = names();
    if (listener === undefined || answersHost(req.headers.host, listener.host, listener.hosts)) return false;
    writeAdminAnswer(res, adminError('misdirected_request'));
    return true;
  };
}
