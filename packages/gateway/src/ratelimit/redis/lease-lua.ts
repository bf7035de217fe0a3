import { LEASE_OF_LIMIT } from './lease-entry.js';

/**
 * The part of the rate-limit script (`redis-script.ts`) that grants and takes back leases: units
 * of an account charged to one gateway instance ahead of its requests, which it then admits
 * without a round trip (`leases.ts`). Why a lease never lets an account over its limit:
 * - it is charged like requests, in every window of the plan, only where every window has room;
 * - it lands in the bucket of each window that `now` falls in, and ends with the first of those
 *   buckets to end (a second of a minute's window, 24 minutes of a day's, the month): a unit used
 *   before that counts where a request made then would have counted, and for as long;
 * - units given back are taken out of the bucket they were charged to, only while it is counted.
 * An instance holds at most an eighth of what the account has left, and at most a 1024th of each
 * window's limit (none at all on a limit under 1,024), for at most one bucket, and gives back what
 * it did not use. A lease is only granted where every decision in between would be an admission
 * for every key of the account: none of them banned or counting strikes, and the clock not stepped
 * back (a bucket later than `now`'s). Each lease granted is recorded in the account and given back
 * by its record (`lease-record-lua.ts`): a refusal its units alone make is no strike, and the
 * refused instance asks for them (`lease-recall.ts`), so that at the limit no unit is left unused.
 * It expects the script's locals `now`, `holder`, `floor`, `remove`, `monthEndOf` and `charge`,
 * and `LEASE_RECORD_LUA`'s, and defines `takeBack(all, account, units, at)` and `grant(all, account, want)`.
 */
export const LEASE_LUA = `
-- Of each window's limit, the most one lease holds is this fraction (none under 1024): what an
-- instance may hold unused is a thousandth of the limit, and a plan whose account cannot be busy
-- enough to need leases (1,000 a minute is 17 a second) has none, so its bursts stay exact.
local LEASE_OF_LIMIT = ${LEASE_OF_LIMIT}
-- Of what the account has left, the most one lease holds: the other instances keep the rest.
local LEASE_OF_LEFT = 8

-- Takes back \`units\` charged at \`at\` (Redis's clock) and never used, from the bucket they were
-- charged to, if the window still counts it (else they already left, and there is nothing to do).
local function giveBack(win, w, cur, units, at)
  if win[6] then
    -- A month counts in one bucket, the month itself, whose start is w[2].
    if at >= w[2] and w[3] >= units then w[3] = w[3] - units end
    return
  end
  local b = floor(at / win[5])
  if b < w[1] or b > w[2] then return end
  local counts, j = w[4], b - w[1] + 1
  if (counts[j] or 0) < units then return end
  counts[j] = counts[j] - units
  w[3] = w[3] - units
  -- As bring() leaves a window: its first bucket holds requests, or it counts none from cur.
  if w[3] == 0 then
    w[1], w[4] = cur, {}
    return
  end
  while counts[1] == 0 do
    remove(counts, 1)
    w[1] = w[1] + 1
  end
end

-- After a request was admitted and charged (all: its windows, all of the key's own plan): the
-- largest lease of at most \`want\` units that the rules above allow, charged; returns its units
-- and when it ends (ms, Redis's clock), or 0, 0.
local function grant(all, account, want)
  for _, ban in pairs(account.bans) do
    if ban[1] > now or ban[3] > now then return 0, 0 end
  end
  local units, ends = want, nil
  for k = 1, #all do
    local e = all[k]
    local win, w = e.win, e.w
    units = math.min(units, floor(win[2] / LEASE_OF_LIMIT), floor((win[2] - w[3]) / LEASE_OF_LEFT))
    local endsAt
    if win[6] then
      endsAt = monthEndOf(w[2])
    else
      if e.cur ~= floor(now / win[5]) then return 0, 0 end
      endsAt = (e.cur + 1) * win[5]
    end
    if ends == nil or endsAt < ends then ends = endsAt end
  end
  if ends == nil or units <= 0 then return 0, 0 end
  for k = 1, #all do charge(all[k].win, all[k].w, all[k].cur, units) end
  record(account, units, ends)
  return units, ends
end

-- Gives back the lease of this call's holder charged at \`at\`: its record goes, and its \`units\`
-- unused leave every window of the account's own layer. Without a record (given up, see
-- \`forget\`, or dropped by an older release writing the account) nothing is given back: its units
-- stay counted, as a lease never given back. Returns whether it found the record.
local function takeBack(all, account, units, at)
  if not unrecord(account, at) then return false end
  if units > 0 then
    for k = 1, #all do
      local e = all[k]
      if e.own then giveBack(e.win, e.w, e.cur, units, at) end
    end
  end
  return true
end
`;
