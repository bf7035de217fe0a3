import { BlockList } from 'node:net';
import type { GatewayConfig } from '../config/index.js';
import type { PlansVersion } from '../events/index.js';
import type { PlansFile } from '../plans/index.js';

/** What replaces a secret in the dump. */
export const REDACTED = '(redacted)';

/** A URL with its password, if any, left out (`redis://user:(redacted)@host`). */
function withoutPassword(href: string): string {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return href;
  }
  if (url.password === '') return url.href;
  url.password = REDACTED;
  return url.href;
}

/**
 * A value of the configuration as JSON: a URL as its text (its password left out), a set as a
 * list, the trusted proxies as their rules, `undefined` as `null` (so every setting shows).
 */
function plain(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof URL) return withoutPassword(value.href);
  if (value instanceof Set) return [...(value as Set<unknown>)].map(plain);
  if (value instanceof BlockList) return value.rules;
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
  return value;
}

/**
 * The settings in force and the plans file's content, as Envoy's `/config_dump` gives its
 * configuration: what every setting came to (defaults included, paths resolved), with the secrets
 * left out: the values of the OTLP exporter's headers (a collector's API key), and the password
 * of any URL (`REDIS_URL`, `UPSTREAM_URL`). The admin tokens are never in the configuration: only
 * their file's path is. Keys (`JWKS`) are public.
 */
export function settingsDump(
  config: GatewayConfig,
  extra: { readonly workers: number; readonly plans?: { readonly content: PlansFile; readonly version: PlansVersion } | undefined },
): unknown {
  const { tracing, redis } = config;
  const settings = {
    ...config,
    redis: redis === undefined ? undefined : { ...redis, url: withoutPassword(redis.url) },
    tracing: tracing === undefined ? undefined : { ...tracing, headers: Object.fromEntries(Object.keys(tracing.headers).map((name) => [name, REDACTED])) },
  };
  return {
    settings: plain(settings),
    workers: extra.workers,
    plans: extra.plans === undefined ? null : { version: extra.plans.version, content: extra.plans.content },
  };
}
