import type { Deprecation } from '../routing/index.js';

/**
 * The headers that tell a client an operation is deprecated: `Deprecation: @<epoch>` (RFC 9745),
 * `Sunset: <HTTP-date>` (RFC 8594), and `Link` to the successor and to the migration notes.
 */
export function deprecationHeaders(deprecation: Deprecation, docUrl: string): Record<string, string> {
  const headers: Record<string, string> = {};
  // RFC 9745: a Structured Field Date; `@1` when the document gives no date ("deprecated since ever").
  const since = deprecation.deprecatedAt === undefined ? 1 : Math.floor(deprecation.deprecatedAt.getTime() / 1000);
  headers.deprecation = `@${since}`;
  if (deprecation.sunset !== undefined) headers.sunset = deprecation.sunset.toUTCString();
  const links = [`<${docUrl}>; rel="deprecation"; type="text/markdown"`];
  if (deprecation.successor !== undefined) links.unshift(`<${deprecation.successor}>; rel="successor-version"`);
  headers.link = links.join(', ');
  return headers;
}

/** True once the operation's sunset instant has passed. */
export function isPastSunset(deprecation: Deprecation, now: number): boolean {
  return deprecation.sunset !== undefined && now >= deprecation.sunset.getTime();
}
