/**
 * The part of the rate-limit script (`redis-script.ts`) that decides the common request without
 * building a table: one account, no layer, decided and charged (no peek, no shadow, no lease, no
 * strike pending: what the short form of a request says, see `redis-script.ts`), whose account is
 * in this release's layout (`account-layout-lua.ts`) with no ban or strike of any key, or has no
 * key yet (a new account), and admitted by every window. A window of the policy the account has
 * none of is made new (`fresh`). It reads the account's bytes by offsets, brings and charges each
 * window of the policy on them as `window-lua.ts` does on tables (`common-window-lua.ts`), and
 * keeps the new bytes for the rest of the call (`raws`), written back once at its end.
 * Any other request, or one this part would refuse, goes to `decide` (the general path), having
 * changed nothing; an account the general path met in the call stays with it for the rest of
 * the call, and takes over one this part wrote (`account-state-lua.ts`).
 * It expects the script's locals `KEYS`, `now`, `out`, `revoked`, `policies`, `states`, `raws`,
 * `written`, `pcall`, `call`, `type`, `sub`, `floor`, `ceil`, the layout's and `cMet`, `cTotal`,
 * `cReset`, `charged` and `fresh`, and defines `common(index, key, policy, cost)` (true when it
 * decided the request: its answer is in `out`) and `saveWritten()`.
 */
export const COMMON_PATH_LUA = `
-- The keys it wrote in this call (set at the start of every call: redis-script.ts).
local writtenKeys
-- The pieces of an account's new bytes, reused by every request (no table made per request); the
-- account's first 6 bytes, by its number of windows (the same for every account of as many).
local cParts, heads = {}, {}
-- An account with no window, no ban and no TTL yet: what a key never written reads as.
local NEW_ACCOUNT = HEAD .. '\\220\\0\\0\\144\\207' .. string.rep('\\0', 8)
local concat = table.concat

-- One request that asks for nothing but a decision and its charge (the caller has checked: no
-- peek, no shadow, no layer, no lease, no strike pending); key: its account's index in KEYS,
-- policy: its number, cost: its units.
local function common(index, key, policy, cost)
  if revoked[index] then return false end
  key = KEYS[key]
  if key == nil or states[key] ~= nil or cost == nil or cost < 1 or cost % 1 ~= 0 then return false end
  local s = raws[key]
  if s == nil then
    s = pcall('GET', key)
    -- An error (a hash of the release before this one's): the general path reads it.
    if type(s) == 'table' then return false end
    raws[key] = s
  end
  -- No key (false): an account met for the first time, no window yet.
  if not s then s = NEW_ACCOUNT end
  local h1, h2, h3, h4, a, b = byte(s, 1, 6)
  if h1 ~= 220 or h2 ~= 0 or h3 ~= 3 or h4 ~= 220 then return false end
  policy = policies[policy]
  local wins, at = policy.wins, policy.at
  if at == nil then
    -- The policy's windows by their letter's byte, and the bucket now falls in for each, once a call.
    at = {}
    for k = 1, policy.n do
      at[byte(wins[k][1])] = k
      if not wins[k][6] then wins[k][7] = floor(now / wins[k][5]) end
    end
    policy.at = at
  end
  for k = 1, policy.n do cMet[k] = false end
  -- The windows in the order the account keeps them: the policy's charged, any other kept as is.
  local windows, p, m = (a * 256 + b) / 4, 7, 1
  for j = 1, windows do
    m, p = charged(s, p, at, wins, cost, cParts, m)
    if m == nil then return false end
  end
  -- The policy's windows the account has none of, new after the others.
  for k = 1, policy.n do
    if not cMet[k] then
      m = fresh(wins[k], k, cost, cParts, m)
      if m == nil then return false end
      windows = windows + 1
    end
  end
  local head = heads[windows]
  if head == nil then
    head = HEAD .. arrayOf(windows * 4)
    heads[windows] = head
  end
  cParts[1] = head
  -- No ban or strike of any key, and when the TTL ends last.
  local bans, et = byte(s, p, p + 1)
  if bans ~= 144 or et ~= 207 or #s ~= p + 9 then return false end
  cParts[m + 1] = sub(s, p)
  raws[key] = concat(cParts, '', 1, m + 1)
  local need = written[key]
  if need == nil then writtenKeys[#writtenKeys + 1] = key end
  if need == nil or policy.longest > need then written[key] = policy.longest end
  -- Admitted, in the reply's short form (6: no retry, no refusing window; redis-script.ts).
  local o = #out
  out[o + 1] = 6
  for k = 1, policy.n do
    out[o + 2 * k], out[o + 1 + 2 * k] = cTotal[k], cReset[k]
  end
  return true
end

-- Writes back what the common path changed (and the general path did not take over), as save() does.
local function saveWritten()
  for i = 1, #writtenKeys do
    local key = writtenKeys[i]
    local ttl = written[key]
    if ttl ~= nil then
      local s = raws[key]
      if sunpack('>I8', s, #s - 7) >= now + ttl then
        call('SET', key, s, 'KEEPTTL')
      else
        local t = ceil(ttl * 25 / 24)
        call('SET', key, sub(s, 1, #s - 8) .. spack('>I8', now + t), 'PX', t)
      end
    end
  end
end
`;
