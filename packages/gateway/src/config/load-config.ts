import { parseEnv, type Env } from '@animal-store/http-kit';
import type { z } from 'zod';
import { GatewaySettings } from './env-schema.js';

/**
 * The gateway's configuration, deep-frozen. Its type follows from the settings' schemas: a new
 * setting is one line in its section's table (`*-env.ts`), and its field appears here.
 */
export type GatewayConfig = z.output<typeof GatewaySettings>;

/** How keys are checked: `{ mode: 'off' }`, or where the public keys come from and what a key must hold. */
export type AuthConfig = GatewayConfig['auth'];

/** Where the public keys come from: a file, an inline JWKS, or a remote key set. */
export type KeysConfig = Extract<AuthConfig, { mode: 'required' }>['keys'];

export type ConfigResult = { readonly ok: true; readonly config: GatewayConfig } | { readonly ok: false; readonly problems: readonly string[] };

/** Parses the environment once; on failure lists every problem, one line per variable. */
export function loadConfig(env: Env): ConfigResult {
  const result = parseEnv(GatewaySettings, env);
  return result.ok ? { ok: true, config: result.value } : result;
}

/** The configuration of this process: the one place the gateway reads `process.env`. */
export function loadConfigFromEnv(): ConfigResult {
  return loadConfig(process.env);
}
