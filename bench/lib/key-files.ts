import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * Keys rotated per request, the same way by both load generators: autocannon through its
 * `setupRequest` (`next`), wrk through a Lua script that reads the same two files, the keys one a
 * line and the order of their indexes (the spread's draws, `accounts.ts`), and sets the
 * Authorization header of each request to the next key of that order.
 */

/** What wrk's rotation script reads; it sets `Authorization: Bearer <key>` per request. */
export const WRK_ROTATION_SCRIPT = `-- bench/lib/key-files.ts: one key a request, in the order of a precomputed spread of accounts.
-- wrk -s rotate-keys.lua <url> -- <keys file, one a line> <order file, one 0-based index a line>
local keys, order, count, at = {}, {}, 0, 0

function init(args)
  for line in io.lines(args[1]) do keys[#keys + 1] = "Bearer " .. line end
  for line in io.lines(args[2]) do order[#order + 1] = tonumber(line) + 1 end
  count = #order
end

function request()
  at = at % count + 1
  wrk.headers["Authorization"] = keys[order[at]]
  return wrk.format()
end
`;

/** A rotation of keys over a spread of accounts, for both generators. */
export interface KeyRotation {
  /** The keys file and the order file wrk's script reads (`-- keysFile orderFile`), and the script. */
  readonly keysFile: string;
  readonly orderFile: string;
  readonly scriptFile: string;
  /** How many distinct accounts it sends, and how many draws its order holds. */
  readonly accounts: number;
  readonly draws: number;
  /** Every key once, as `Bearer …` headers: a pass over them warms a gateway's cache of verified keys. */
  readonly headers: readonly string[];
  /** The next `Bearer …` header of the order (autocannon's `setupRequest`), cycling. */
  next(): string;
}

/**
 * Writes `keys` and `order` (indexes into `keys`) under `dir` as `<name>.keys` and `<name>.order`,
 * and the script beside them once, and returns the rotation over them.
 */
export function writeKeyRotation(dir: string, name: string, keys: readonly string[], order: Uint32Array): KeyRotation {
  if (keys.length === 0 || order.length === 0) throw new Error(`${name}: a key rotation needs keys and an order`);
  for (const index of order) if (index >= keys.length) throw new Error(`${name}: the order names key ${index} of ${keys.length}`);
  for (const key of keys) if (/\s/.test(key)) throw new Error(`${name}: a key holds white space`);
  const keysFile = join(dir, `${name}.keys`);
  const orderFile = join(dir, `${name}.order`);
  const scriptFile = join(dir, 'rotate-keys.lua');
  writeFileSync(keysFile, `${keys.join('\n')}\n`);
  writeFileSync(orderFile, `${Array.from(order).join('\n')}\n`);
  writeFileSync(scriptFile, WRK_ROTATION_SCRIPT);
  const headers = keys.map((key) => `Bearer ${key}`);
  let at = 0;
  return {
    keysFile,
    orderFile,
    scriptFile,
    accounts: new Set(order).size,
    draws: order.length,
    headers,
    next: () => headers[order[at++ % order.length] as number] as string,
  };
}
