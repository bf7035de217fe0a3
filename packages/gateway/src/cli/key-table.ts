import type { IssuedKey, KeyStopped, listKeys } from '../keyring/index.js';
import { printable } from './printable.js';

const STOPPED: Record<KeyStopped, (key: IssuedKey) => string> = {
  revoked: () => 'revoked',
  expired: () => 'expired',
  retired: (key) => `kid ${key.kid} retired`,
};

/**
 * `keys list` as a table for a terminal: one line a key, columns padded, the header first. A key
 * rerolled with a grace period is revoked `from` the end of it, and accepted until then. Cells
 * come from the keyring's files: a line feed or an escape in one is shown escaped, not obeyed.
 */
export function keyTable(keys: ReturnType<typeof listKeys>): string {
  const rows = keys.map((k) =>
    [
      k.jti,
      k.sub,
      k.plan,
      k.expiresAt ?? 'never',
      k.revokedAt === undefined ? 'no' : k.stopped === 'revoked' ? `yes (${k.revokedAt})` : `from ${k.revokedAt}`,
      k.stopped === undefined ? 'yes' : `no: ${STOPPED[k.stopped](k)}`,
    ].map((cell) => printable(cell)),
  );
  const table = [['JTI', 'ACCOUNT', 'PLAN', 'EXPIRES', 'REVOKED', 'ACCEPTED'], ...rows];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((row) => (row[i] as string).length))) ?? [];
  return table
    .map(
      (row) =>
        `${row
          .map((cell, i) => cell.padEnd(widths[i] as number))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
