import { ensureDenyList } from '../auth/index.js';
import type { GatewayConfig } from '../config/index.js';
import { readAdminTokens, type AdminTokens } from './admin-tokens.js';

/**
 * What the admin API needs of the file system before the gateway serves: its tokens
 * (`ADMIN_TOKEN_FILE`, read whole, see `readAdminTokens`), and its own deny-list file
 * (`ADMIN_REVOCATIONS_FILE`), made empty when it does not exist yet, so that every worker can read
 * it from the start. Throws with a message naming the setting: the gateway does not start (a
 * reload keeps the settings it had). `undefined` when the admin API is off.
 */
export function prepareAdmin(config: GatewayConfig): AdminTokens | undefined {
  const { admin } = config;
  if (admin === undefined) return undefined;
  const tokens = readAdminTokens(admin.tokenFile);
  const read = config.auth.mode === 'off' ? undefined : config.auth.revocationsFile;
  if (admin.revocationsFile !== undefined && admin.revocationsFile !== read) {
    try {
      ensureDenyList(admin.revocationsFile);
    } catch (error) {
      throw new Error(`ADMIN_REVOCATIONS_FILE ${admin.revocationsFile} cannot be made: ${(error as Error).message}`);
    }
  }
  return tokens;
}
