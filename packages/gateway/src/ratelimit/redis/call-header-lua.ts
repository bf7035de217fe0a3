/**
 * The part of the rate-limit script (`redis-script.ts`) that reads what a call holds as a whole,
 * before any request is decided: the clock (Redis TIME, or the tests' ARGV 1), the deadline (a
 * call started after it returns `now` alone, having read and charged nothing), the month now
 * falls in (`monthStart`, `monthEnd`, and `monthEndOf`), the process that sent it (`holder`), the
 * policies (once a call, however many requests share one), and the deny-list, asked once
 * (SMISMEMBER) for every request of the call that checks its key's revocation. ARGV is as
 * `redis-script.ts` describes it.
 *
 * In two parts, as the script's functions are made once, not at each call (`redis-script.ts`):
 * `CALL_HEADER_LUA` declares, among the script's locals, `now`, `holder`, `requests`, `repeated`
 * (tonumber of a field whose values repeat, memoized), `policies` (a window is {letter, limit, ms,
 * buckets, width, month}), `first` (the offset of the first request's fields), `revoked` (by
 * request number) and the month's bounds, and defines `monthEndOf(start)`; `CALL_START_LUA`, the
 * first statements of every call, sets them. They expect the script's locals `ARGV`, `KEYS`,
 * `call`, `tonumber`, `floor`, `byte` and `sub`.
 */
export const CALL_HEADER_LUA = `
local now, requests, holder, monthStart, monthEnd, policies, packedRequests, revoked
local starts = {}
-- A request's fields, as struct formats (redis-call.ts): the first, in either form (its key's
-- index, whether it checks the deny-list, its policy, its cost and its key id's length, the id's
-- bytes after them; WITH_ID reads the id too, as a string: only where it is needed); the full
-- form's next (strikes, mode, shadow, further layers), each further layer's (its key's index and
-- policy), and its lease terms (units asked for, units given back, when they were charged).
local PREFIX, WITH_ID, TAIL, LAYER, LEASE = '<i4BI4dH', '<i4BI4dHc0', '<dBBI4', '<i4I4', '<ddd'

-- When a month that started at one of the call's month starts ends (a clock that stepped back
-- may count in a later one).
local function monthEndOf(start)
  for i = 1, #starts - 1 do if starts[i] == start then return starts[i + 1] end end
  return monthEnd
end
`;

export const CALL_START_LUA = `
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = call('TIME')
  now = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
end
requests = tonumber(ARGV[2])
local denyList = ARGV[3] == '1'
-- Started after the gateway stopped waiting (Redis stalled, or it ran calls held by a pause):
-- decide nothing, charge nothing.
local deadline = tonumber(ARGV[5])
if deadline ~= nil and now > deadline then return packed({ now }) end

-- The gateway process that sent the call: the holder of the leases it asks for and gives back.
holder = ARGV[6]

-- The month now falls in, from the starts given (ARGV 7 tells how many).
starts = {}
local a = 8
for i = 1, tonumber(ARGV[7]) do starts[i] = tonumber(ARGV[7 + i]) a = a + 1 end
monthStart, monthEnd = starts[1], starts[2]
for i = 2, #starts - 1 do
  if now >= starts[i] then monthStart, monthEnd = starts[i], starts[i + 1] end
end

-- Policies, read once a call. A window is {letter, limit, ms, buckets, width, month}: month is
-- true for a calendar month, which a call sends as window ms 0 and buckets 0 (the only place
-- that reads it so: the rest of the script asks month).
policies = {}
for i = 1, tonumber(ARGV[4]) do
  local n = tonumber(ARGV[a + 3])
  local wins, longest = {}, 0
  for k = 1, n do
    local b = a + 4 + (k - 1) * 4
    local ms, buckets = tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3])
    local month, width = buckets == 0, 0
    -- A month's counter must outlive the month; a sliding window's, a window and a bucket.
    if month then ms = monthEnd - now else width = ms / buckets end
    wins[k] = { sub(ARGV[b], 1, 1), tonumber(ARGV[b + 1]), ms, buckets, width, month }
    if ms + width > longest then longest = ms + width end
  end
  policies[i] = { wins = wins, n = n, strikes = tonumber(ARGV[a]), strikeMs = tonumber(ARGV[a + 1]), banMs = tonumber(ARGV[a + 2]), longest = longest }
  a = a + 4 + n * 4
end
packedRequests = ARGV[a] -- every request, packed (redis-call.ts)

-- The deny-list, once for the whole call.
revoked = {}
if denyList then
  local asked, at = {}, {}
  local p = 1
  for i = 1, requests do
    local key, checks, _, _, keyId, q = sunpack(WITH_ID, packedRequests, p)
    if checks == 1 then asked[#asked + 1] = keyId at[#asked] = i end
    -- The full form goes on: its strikes, mode, shadow, layers (8 bytes each) and lease terms.
    if key >= 0 then q = q + 14 + 8 * sunpack('<I4', packedRequests, q + 10) + 24 end
    p = q
  end
  if #asked > 0 then
    local found = call('SMISMEMBER', KEYS[1], unpack(asked))
    for j = 1, #asked do if found[j] == 1 then revoked[at[j]] = true end end
  end
end
`;
