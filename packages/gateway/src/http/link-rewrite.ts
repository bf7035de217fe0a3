import { mapPrefix } from './map-prefix.js';

/**
 * Rewrites, in place, the `Location` and `Link` values of a flat `[name, value, …]` header list
 * (an upstream's answer headers) from the upstream's paths to the public ones.
 */
export type LinkRewriter = (headers: string[]) => void;

export interface LinkRewriteOptions {
  /** The upstream's origin (`http://pets:8081`): absolute URLs on it name the upstream itself. */
  readonly upstreamOrigin: string;
  /** The path the upstream serves the operations under (`/v1`; `''` for the root). */
  readonly upstreamPrefix: string;
  /** The path clients use for them (`/api/pets`; `''` for the root). */
  readonly publicPrefix: string;
}

/**
 * What nginx's `proxy_redirect` does, for `Location` and every target of `Link`: a reference to
 * the upstream itself (a path under `upstreamPrefix`, or an absolute URL on `upstreamOrigin` with
 * such a path) becomes the public path under `publicPrefix`; any other reference is left alone.
 * `undefined` when the two prefixes are the same: there is nothing to rewrite, and the answer
 * path then pays nothing for it.
 */
export function createLinkRewriter(options: LinkRewriteOptions): LinkRewriter | undefined {
  if (options.upstreamPrefix === options.publicPrefix) return undefined;
  const toPublic = (reference: string) => publicReference(reference, options);
  return function rewriteLinks(headers) {
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i] as string;
      const value = headers[i + 1] as string;
      if (name.length === 8 && name.toLowerCase() === 'location') headers[i + 1] = toPublic(value.trim());
      else if (name.length === 4 && name.toLowerCase() === 'link') headers[i + 1] = rewriteLinkTargets(value, toPublic);
    }
  };
}

/** `scheme://authority`, then the rest (path, query, fragment), of an absolute URL. */
const ABSOLUTE = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([/?#].*)?$/i;

/**
 * One URI reference as the client should see it. An absolute URL on the upstream's origin
 * becomes a path (relative to the client's own origin): the gateway does not always know the
 * public origin (a proxy in front may have its own name), and RFC 9110 and RFC 8288 allow
 * relative references in `Location` and `Link`.
 */
export function publicReference(reference: string, options: LinkRewriteOptions): string {
  let path = reference;
  if (reference.charCodeAt(0) !== 0x2f) {
    const absolute = ABSOLUTE.exec(reference);
    if (absolute === null || originOf(absolute[1] as string) !== options.upstreamOrigin) return reference;
    path = absolute[2] ?? '/';
    if (path.charCodeAt(0) !== 0x2f) path = `/${path}`;
  }
  return mapPrefix(path, options.upstreamPrefix, options.publicPrefix) ?? reference;
}

/**
 * A `Link` value (RFC 8288: `<ref>; param=value, <ref>; …`) with each target passed through
 * `rewrite`. Parameters are copied as they are, quoted strings too, whatever they hold (`,`, `<`).
 */
export function rewriteLinkTargets(value: string, rewrite: (reference: string) => string): string {
  let out = '';
  let from = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (quoted) {
      // A quoted-pair (`\"`): the next character is taken as it is, even a quote.
      if (c === 0x5c) i++;
      else if (c === 0x22) quoted = false;
    } else if (c === 0x22) {
      quoted = true;
    } else if (c === 0x3c) {
      const end = value.indexOf('>', i + 1);
      if (end === -1) break; // unterminated: the rest is left as it came
      out += value.slice(from, i + 1) + rewrite(value.slice(i + 1, end).trim());
      from = end;
      i = end;
    }
  }
  return from === 0 ? value : out + value.slice(from);
}

/** The origin of `scheme://authority`, normalised as `URL` does (case, default port); `undefined` if invalid. */
function originOf(schemeAndAuthority: string): string | undefined {
  try {
    return new URL(schemeAndAuthority).origin;
  } catch {
    return undefined;
  }
}
