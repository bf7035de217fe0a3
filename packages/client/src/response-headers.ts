/** What the rate-limit headers of the latest answer said (`X-RateLimit-*`). */
export interface RateLimitState {
  readonly limit: number;
  readonly remaining: number;
  /** Unix time, in seconds, at which the window closest to refusing admits again. */
  readonly resetAt: number;
}

/** The `X-RateLimit-*` headers, or `undefined` when an answer lacks one of them. */
export function rateLimitOf(headers: Headers): RateLimitState | undefined {
  const [limit, remaining, resetAt] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) => {
    const value = headers.get(name);
    return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
  });
  return limit === undefined || remaining === undefined || resetAt === undefined ? undefined : { limit, remaining, resetAt };
}

export interface LinkValue {
  /** The target, resolved against the answer's URL. */
  readonly href: string;
  readonly rels: readonly string[];
}

/** RFC 8288 `Link` values: `<uri>; rel="a b"; type="…", <uri2>; rel=c`. */
export function parseLinks(header: string | null, base: string): LinkValue[] {
  if (header === null) return [];
  const links: LinkValue[] = [];
  // A URI between <>, then parameters up to the next comma that follows a complete value.
  const pattern = /<([^>]*)>((?:\s*;\s*[A-Za-z0-9!#$&+.^_`|~*-]+(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,]*))?)*)/g;
  for (const match of header.matchAll(pattern)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]+))/i.exec(match[2] ?? '');
    const rels = (rel?.[1] ?? rel?.[2] ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((value) => value !== '');
    try {
      links.push({ href: new URL(match[1] ?? '', base).href, rels });
    } catch {
      // A target that is not a URI reference: skipped, as a browser would.
    }
  }
  return links;
}

/** What a deprecated operation's answer says about it (RFC 9745, RFC 8594, RFC 8288). */
export interface DeprecationNotice {
  /** The operation's id: `getPet`. */
  readonly operation: string;
  /** `Deprecation`: when it was deprecated. */
  readonly deprecatedAt: Date | undefined;
  /** `Sunset`: when it goes away. */
  readonly sunset: Date | undefined;
  /** The `rel="deprecation"` link: what to read about it. */
  readonly link: string | undefined;
  /** The `rel="successor-version"` link: what to use instead. */
  readonly successor: string | undefined;
}

/** The deprecation notice of an answer, or `undefined` when it has no `Deprecation` header. */
export function deprecationOf(operation: string, headers: Headers, base: string): DeprecationNotice | undefined {
  const deprecation = headers.get('deprecation');
  if (deprecation === null) return undefined;
  const epoch = /^@(-?\d+)$/.exec(deprecation.trim());
  const sunset = headers.get('sunset');
  const sunsetDate = sunset === null ? undefined : new Date(sunset);
  const links = parseLinks(headers.get('link'), base);
  return {
    operation,
    deprecatedAt: epoch === null ? undefined : new Date(Number(epoch[1]) * 1000),
    sunset: sunsetDate === undefined || Number.isNaN(sunsetDate.getTime()) ? undefined : sunsetDate,
    link: links.find((link) => link.rels.includes('deprecation'))?.href,
    successor: links.find((link) => link.rels.includes('successor-version'))?.href,
  };
}
