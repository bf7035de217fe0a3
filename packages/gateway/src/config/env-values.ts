import { isIP } from 'node:net';
import { z } from 'zod';

/* The kinds of value the gateway's settings take, parsed and checked (used by the sections, `*-env.ts`). */

/** A whole number from `min` (to `max`, when given). */
export function int(min: number, max?: number) {
  const atLeast = z.coerce.number().int().min(min);
  return max === undefined ? atLeast : atLeast.max(max);
}

/** A TCP port; `0` picks a free one. */
export const port = int(0, 65535);
/** A duration in milliseconds, at least 1. */
export const ms = int(1);
/** An `http://` or `https://` URL. */
export const httpUrl = z.url({ protocol: /^https?$/ });
/** A `redis://` or `rediss://` URL. */
export const redisUrl = z.url({ protocol: /^rediss?$/ });
/** A Redis key prefix, which may hold a cluster hash tag (`{gw}`). */
export const redisPrefix = z.string().regex(/^[A-Za-z0-9:_{}-]{1,64}$/);

/** A comma-separated list of IPs and CIDRs (`10.0.0.0/8, ::1`); empty trusts no proxy. */
export const cidrList = z.string().transform((value, ctx) => {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    if (family === 0 || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits))) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not an IP address or CIDR` });
    }
  }
  return entries;
});

/** A comma-separated list of host names (`admin.internal, ops.example.com`), lower-cased, without a trailing dot. */
export const hostNameList = z.string().transform((value, ctx) => {
  const entries = value
    .split(',')
    .map((entry) => entry.trim().toLowerCase().replace(/\.$/, ''))
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (!/^[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/.test(entry) || entry.length > 253)
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not a host name (no port, no scheme: admin.internal)` });
  }
  return entries;
});

/** A base path: `/` or `/segment[/segment…]`, no trailing slash, nothing to normalise. */
export const basePath = z
  .string()
  .regex(/^\/$|^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)+$/, { error: 'must be "/" or like "/v1" or "/api/pets" (no trailing slash, no dot segments)' })
  .refine((value) => !value.split('/').some((segment) => segment === '.' || segment === '..'), { error: 'must not hold dot segments' });

/** `*`, or a comma-separated list of exact origins (`https://app.example.com`). */
export const originList = z.string().transform((value, ctx) => {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 1 && entries[0] === '*') return entries;
  for (const entry of entries) {
    let origin: string | undefined;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = undefined;
    }
    if (origin !== entry)
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not an origin like https://app.example.com (scheme, host, port; no path), or "*" alone` });
  }
  return entries;
});

/** Asymmetric JWS algorithms only: `none` and HMAC (the public-key-as-secret attack) cannot verify. */
export const ALGORITHMS = ['EdDSA', 'ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;
export const algorithmList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  )
  .pipe(z.array(z.enum(ALGORITHMS)).min(1));

/** An inline JWKS: public keys only, so it may live in the environment. */
export const inlineJwks = z.string().transform((value, ctx) => {
  try {
    const jwks = JSON.parse(value) as { keys?: unknown };
    if (Array.isArray(jwks.keys) && jwks.keys.every((key) => typeof key === 'object' && key !== null && !('d' in key))) {
      return jwks as { keys: Record<string, unknown>[] };
    }
    ctx.addIssue({ code: 'custom', message: 'must be a JWKS of public keys: {"keys": [...]} without private parts' });
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be JSON' });
  }
  return z.NEVER;
});
