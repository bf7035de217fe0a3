/**
 * The part of the rate-limit script (`redis-script.ts`) that keeps an account's leases on record
 * (`account.leases`, flat: per lease its holder, units, when it was charged and when it ends, ms
 * on Redis's clock; see `account-state-lua.ts`), so that Redis knows, without asking anyone:
 * - which refusals units leased and not yet given back account for (`heldRefusal`): the account's
 *   limit would not have made them, so they are no strike, and the gateway asks the holder for its
 *   units and decides again (`lease-recall.ts`);
 * - what a holder that never gave back leaves: a record still there `FORGET_MS` after its lease
 *   ended is given up (`forget`), its units left counted (some may have been used: the limit never
 *   admits more than it allows) and added to the month's tally (`account.tally`: {month start,
 *   units}), which billing shows apart from the units used (`unaccounted`).
 * It expects the script's locals `now`, `holder`, `floor`, `remove` and `monthStart`, and defines
 * `record`, `unrecord`, `forget`, `heldRefusal` and `unaccounted`.
 */
export const LEASE_RECORD_LUA = `
-- A lease this long past its end holds nothing back any more: its holder gives back within 250 ms
-- of the end (at once when asked), so one that has not by then is gone or cut off, and a refusal
-- its units account for is the limit's own (they may have been used).
local LAPSE_MS = 2000
-- A record this long past its lease's end is given up (a minute: the lease's units have left the
-- minute's window by then, and a holder that is alive has given back long before).
local FORGET_MS = 60000

-- Records a lease granted to this call's holder now.
local function record(account, units, ends)
  local l = account.leases
  l[#l + 1] = holder
  l[#l + 1] = units
  l[#l + 1] = now
  l[#l + 1] = ends
end

-- Removes the record of this call's holder's lease charged at \`at\`; returns whether there was one.
local function unrecord(account, at)
  local l = account.leases
  for i = 1, #l, 4 do
    if l[i] == holder and l[i + 2] == at then
      for _ = 1, 4 do remove(l, i) end
      return true
    end
  end
  return false
end

-- Gives up the records FORGET_MS past their end: their units stay counted, and those charged in
-- the month under way join its tally. Returns whether any was given up.
local function forget(account)
  local l, i, found = account.leases, 1, false
  while i <= #l do
    if l[i + 3] + FORGET_MS <= now then
      if monthStart ~= nil and l[i + 2] >= monthStart then
        if account.tally == nil or account.tally[1] ~= monthStart then account.tally = { monthStart, 0 } end
        account.tally[2] = account.tally[2] + l[i + 1]
      end
      for _ = 1, 4 do remove(l, i) end
      found = true
    else
      i = i + 4
    end
  end
  return found
end

-- The units of leases not given back and not lapsed, of any holder, that the window counts.
local function heldIn(account, win, w)
  local l, units = account.leases, 0
  for i = 1, #l, 4 do
    local at = l[i + 2]
    if l[i + 3] + LAPSE_MS > now then
      if win[6] then
        if at >= w[2] then units = units + l[i + 1] end
      else
        local b = floor(at / win[5])
        if w[3] > 0 and b >= w[1] and b <= w[2] then units = units + l[i + 1] end
      end
    end
  end
  return units
end

-- For a request the key's own windows refuse (and no other layer): true when every refusing
-- window would admit it without the units of leases not given back.
local function heldRefusal(all, account, cost)
  if #account.leases == 0 then return false end
  for k = 1, #all do
    local e = all[k]
    if e.own and e.w[3] + cost > e.win[2] and e.w[3] - heldIn(account, e.win, e.w) + cost > e.win[2] then return false end
  end
  return true
end

-- The units of the month starting at \`start\` that no holder has accounted for: leases given up,
-- and leases of other holders than this call's, not given back yet (the caller counts its own).
local function unaccounted(account, start)
  local units, l = 0, account.leases
  if account.tally ~= nil and account.tally[1] == start then units = account.tally[2] end
  for i = 1, #l, 4 do
    if l[i] ~= holder and l[i + 2] >= start then units = units + l[i + 1] end
  end
  return units
end
`;
