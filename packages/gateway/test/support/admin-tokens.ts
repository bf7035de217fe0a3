import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDir } from '@animal-store/testkit';

/** An admin token file in a temporary directory with one token, named `name`: its path and the header that sends the token. */
export function writeAdminTokens(name = 'ops'): { readonly file: string; readonly token: string; readonly headers: { readonly authorization: string } } {
  const token = `${name}-token-${'0123456789abcdef'.repeat(3)}`;
  const file = join(temporaryDir('gw-admin-'), 'admin-tokens');
  writeFileSync(file, `${name}:${token}\n`, { mode: 0o600 });
  return { file, token, headers: { authorization: `Bearer ${token}` } };
}
