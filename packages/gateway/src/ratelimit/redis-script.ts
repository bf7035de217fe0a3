import { ACCOUNT_STATE_LUA } from './account-state-lua.js';
import { CALL_HEADER_LUA } from './call-header-lua.js';

/**
 * Rate-limit decisions for a batch of requests, in one round trip: for each request in arrival
 * order, its revocation, bans, every window, the charge and strikes, all or nothing, exactly as if
 * it were alone (a later request of the same account sees the earlier ones' charges). The
 * algorithm is `sliding-window.ts`'s, line for line; a batch of one is the single-request case.
 *
 * KEYS: the deny-list set first when ARGV 3 is '1' (standalone Redis; on a cluster it lives in
 *   another slot and is asked apart), then the accounts' keys (a hash tag per account, so the
 *   batch runs on Redis Cluster when all its accounts share a slot).
 * An account's key is one string: its whole state (see `account-state-lua.ts`).
 * ARGV: 1 now in ms, or '' for Redis TIME (one clock for every gateway instance, read once a call)
 *       2 the number of requests, 3 '1' when KEYS[1] is the deny-list, 4 the number of policies,
 *       5 the deadline (ms, Redis's clock; '' for none): a call started after it returns {now} alone
 *       then per policy (4 + 4 × windows fields): strikes before a ban (0: no bans), strike window
 *         ms, ban ms, the number of windows, then per window: name, limit, window ms, buckets
 *       then per request (7 fields): the index in KEYS of its account's key (0: no limit, a
 *         revocation check alone), the key id (`jti`) whose revocation, bans and strikes apply (''
 *         for none), '1' to refuse it when the deny-list holds it, its policy's number (from 1),
 *         strikes collected locally since the last call (refusals answered from the deny cache),
 *         '1' to peek: decide as for any request, then charge nothing, count no strike and keep
 *         nothing, so the account is not written for it (GET /v1/usage), then its cost: the
 *         units it spends of every window (1 for most operations)
 * Returns {now, then per request: outcome (1 admitted, 0 refused, 2 banned, 3 revoked; for a peek,
 *          what the request would get), retryAt (-1: never, 0: none), then per window: total after
 *          this request (before it, for a peek), resetAt}.
 * A revoked request is refused before anything is read or charged. The deny-list is asked once a
 * call (SMISMEMBER) for every request that checks revocation.
 */
export const RATE_LIMIT_SCRIPT = `
-- Locals, not globals: Lua 5.1 looks globals up by name each time.
local ARGV, KEYS, call, pcall = ARGV, KEYS, redis.call, redis.pcall
local tonumber, floor, ceil, sub, type, remove = tonumber, math.floor, math.ceil, string.sub, type, table.remove
local encode, decode = cmsgpack.pack, cmsgpack.unpack

${CALL_HEADER_LUA}
${ACCOUNT_STATE_LUA}
local out = { now }

-- Appends a refused-without-reading answer (revoked, or no limit to check) for n windows.
local function padded(outcome, n)
  out[#out + 1] = outcome
  out[#out + 1] = 0
  for k = 1, n do
    out[#out + 1] = 0
    out[#out + 1] = now
  end
end

-- Appends the answer: the outcome, retryAt, and per window its total and reset.
local function answer(wins, ws, n, outcome, retryAt)
  out[#out + 1] = outcome
  out[#out + 1] = retryAt
  for k = 1, n do
    local w = ws[k]
    out[#out + 1] = w[3]
    if w[3] == 0 then out[#out + 1] = now else out[#out + 1] = (w[1] + wins[k][4] + 1) * wins[k][5] end
  end
end

local ws, current = {}, {}

-- One request; r: the offset of its fields in ARGV.
local function decide(r, index)
  local keyIndex, keyId = tonumber(ARGV[r]), ARGV[r + 1]
  local policy = policies[tonumber(ARGV[r + 3])]
  local wins, n = policy.wins, policy.n
  if revoked[index] then return padded(3, n) end
  if keyIndex == 0 then return padded(1, n) end
  local key = KEYS[keyIndex]
  local state = load(key, policy)

  for k = 1, n do
    local win = wins[k]
    local w = state.w[win[1]]
    if w == nil then
      w = { 0, 0, 0, {} }
      state.w[win[1]] = w
    end
    -- A clock that steps back stays in the newest bucket seen.
    local cur = floor(now / win[5])
    if w[2] > cur then cur = w[2] end
    -- Drop buckets that left the window, then empty ones, so the first bucket holds requests.
    if w[3] > 0 then
      local lowest, counts = cur - win[4], w[4]
      while w[1] <= w[2] and (w[1] < lowest or counts[1] == 0) do
        w[3] = w[3] - counts[1]
        remove(counts, 1)
        w[1] = w[1] + 1
      end
    end
    if w[3] == 0 then
      w[1] = cur
      w[4] = {}
    end
    ws[k], current[k] = w, cur
  end

  local ban
  if keyId ~= '' then
    ban = state.bans[keyId]
    if ban ~= nil and ban[1] > now then return answer(wins, ws, n, 2, ban[1]) end
  end

  local cost = tonumber(ARGV[r + 6])
  local retryAt, blocked = 0, false
  for k = 1, n do
    local win, w = wins[k], ws[k]
    if w[3] + cost > win[2] then
      blocked = true
      local at = -1
      if win[2] >= cost then
        local toFree, counts = w[3] + cost - win[2], w[4]
        for j = 1, #counts do
          toFree = toFree - counts[j]
          if toFree <= 0 then at = (w[1] + j - 1 + win[4] + 1) * win[5] break end
        end
      end
      if at == -1 or retryAt == -1 then retryAt = -1 elseif at > retryAt then retryAt = at end
    end
  end

  -- A peek stops here: what the request would get, and nothing charged, counted or kept. (The
  -- buckets dropped above are dropped in this call's copy only, unless a charge keeps it.)
  if ARGV[r + 5] == '1' then
    if blocked then return answer(wins, ws, n, 0, retryAt) end
    return answer(wins, ws, n, 1, 0)
  end

  if not blocked then
    for k = 1, n do
      local w, cur = ws[k], current[k]
      local counts = w[4]
      -- Buckets without requests between the last one and this one count 0.
      for j = #counts + 1, cur - w[1] do counts[j] = 0 end
      local j = cur - w[1] + 1
      counts[j] = (counts[j] or 0) + cost
      w[3] = w[3] + cost
      w[2] = cur
    end
    keep(key, state, policy)
    return answer(wins, ws, n, 1, 0)
  end

  if keyId ~= '' and policy.strikes > 0 then
    if ban == nil then
      ban = { 0, 0, 0 }
      state.bans[keyId] = ban
    end
    if ban[3] <= now then ban[2], ban[3] = 0, now + policy.strikeMs end
    ban[2] = ban[2] + 1 + tonumber(ARGV[r + 4])
    if ban[2] >= policy.strikes then
      ban[1], ban[2], ban[3] = now + policy.banMs, 0, 0
      keep(key, state, policy)
      return answer(wins, ws, n, 2, ban[1])
    end
    keep(key, state, policy)
    return answer(wins, ws, n, 0, retryAt)
  end
  return answer(wins, ws, n, 0, retryAt)
end

local r = first
for i = 1, requests do
  decide(r, i)
  r = r + 7
end
saveTouched()
return out
`;
