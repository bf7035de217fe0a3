/**
 * The rate-limit decision for one request, in one round trip: bans, every window, the charge, and
 * strikes, all or nothing. The algorithm is `sliding-window.ts`'s, line for line.
 *
 * KEYS (one account's hash tag, so the script runs on Redis Cluster):
 *   1 the account's window counters, one small hash for all windows. Per window (w = its first
 *     letter): `wt` total, `wf` first bucket, `wl` last bucket, and `w<slot>` the requests admitted
 *     in a bucket, its slot being bucket mod (buckets + 1): the buckets in use never span more than
 *     buckets + 1 in a row, so slots never collide, and field names stay 2-3 bytes (memory).
 *   2 the key's ban (a string with a TTL)
 *   3 the key's strikes (a counter with a TTL)
 * ARGV: 1 now in ms, or '' for Redis TIME (one clock for every gateway instance)
 *       2 1 when the request has a key (bans and strikes apply), else 0
 *       3 strikes before a ban (0: no bans), 4 strike window ms, 5 ban ms
 *       6 strikes collected locally since the last call (refusals answered from the deny cache)
 *       7 number of windows, then per window: name, limit, window ms, buckets
 * Returns {outcome (1 admitted, 0 refused, 2 banned), now, retryAt (-1: never, 0: none),
 *          then per window: total after this request, resetAt}
 * Invariant: while a window's total is above 0, its first bucket holds requests; so the common
 * path reads no bucket at all (one HMGET, the charge, one HSET). Bucket numbers are formatted with
 * %d before they are stored: Lua 5.1 prints large numbers as 1.8e+09.
 */
export const RATE_LIMIT_SCRIPT = `
local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local hasKey = ARGV[2] == '1'
local strikeLimit, strikeMs, banMs = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local pending = tonumber(ARGV[6])
local n = tonumber(ARGV[7])
local wins = {}
local meta = {}
local longest = 0
for k = 1, n do
  local base = 7 + (k - 1) * 4
  local w = { p = string.sub(ARGV[base + 1], 1, 1), limit = tonumber(ARGV[base + 2]), ms = tonumber(ARGV[base + 3]), buckets = tonumber(ARGV[base + 4]) }
  w.width = w.ms / w.buckets
  if w.ms + w.width > longest then longest = w.ms + w.width end
  wins[k] = w
  meta[#meta + 1] = w.p .. 't'
  meta[#meta + 1] = w.p .. 'f'
  meta[#meta + 1] = w.p .. 'l'
end
local h = redis.call('HMGET', KEYS[1], unpack(meta))

local function slot(w, bucket)
  return w.p .. string.format('%d', bucket % (w.buckets + 1))
end

for k = 1, n do
  local w = wins[k]
  w.total, w.first, w.last = tonumber(h[k * 3 - 2]) or 0, tonumber(h[k * 3 - 1]) or 0, tonumber(h[k * 3]) or 0
  w.was = { w.total, w.first, w.last }
  w.current = math.max(math.floor(now / w.width), w.last)
  local lowest = w.current - w.buckets
  -- Drop buckets that left the window, then any empty ones, so the first bucket holds requests.
  while w.total > 0 and w.first < lowest do
    local c = tonumber(redis.call('HGET', KEYS[1], slot(w, w.first))) or 0
    w.total = w.total - c
    redis.call('HDEL', KEYS[1], slot(w, w.first))
    w.first = w.first + 1
    while w.total > 0 and w.first <= w.last and (tonumber(redis.call('HGET', KEYS[1], slot(w, w.first))) or 0) == 0 do
      w.first = w.first + 1
    end
  end
  if w.total == 0 then w.first = w.current end
end

-- Writes only what changed. The TTL is refreshed when a bucket is created: the hash then outlives
-- its newest bucket's stay in the longest window (created at t >= its start, kept to t + longest).
local newBucket = false
local function result(outcome, retryAt)
  local out = { outcome, now, retryAt }
  local fields = {}
  for k = 1, n do
    local w = wins[k]
    local now3 = { w.total, w.first, w.last }
    for i, suffix in ipairs({ 't', 'f', 'l' }) do
      if now3[i] ~= w.was[i] then
        fields[#fields + 1] = w.p .. suffix
        fields[#fields + 1] = string.format('%d', now3[i])
      end
    end
    out[#out + 1] = w.total
    if w.total == 0 then out[#out + 1] = now else out[#out + 1] = (w.first + w.buckets + 1) * w.width end
  end
  if #fields > 0 then redis.call('HSET', KEYS[1], unpack(fields)) end
  if newBucket then redis.call('PEXPIRE', KEYS[1], math.ceil(longest)) end
  return out
end

if hasKey then
  local banLeft = redis.call('PTTL', KEYS[2])
  if banLeft > 0 then return result(2, now + banLeft) end
end

local retryAt, blocked = 0, false
for k = 1, n do
  local w = wins[k]
  if w.total + 1 > w.limit then
    blocked = true
    local at = -1
    if w.limit >= 1 then
      local toFree = w.total + 1 - w.limit
      for b = w.first, w.last do
        toFree = toFree - (tonumber(redis.call('HGET', KEYS[1], slot(w, b))) or 0)
        if toFree <= 0 then at = (b + w.buckets + 1) * w.width break end
      end
    end
    if at == -1 or retryAt == -1 then retryAt = -1 elseif at > retryAt then retryAt = at end
  end
end

if not blocked then
  for k = 1, n do
    local w = wins[k]
    if w.total == 0 then w.first = w.current end
    if redis.call('HINCRBY', KEYS[1], slot(w, w.current), 1) == 1 then newBucket = true end
    w.total = w.total + 1
    w.last = w.current
  end
  return result(1, 0)
end

if hasKey and strikeLimit > 0 then
  local strikes = redis.call('INCRBY', KEYS[3], 1 + pending)
  if strikes == 1 + pending then redis.call('PEXPIRE', KEYS[3], strikeMs) end
  if strikes >= strikeLimit then
    redis.call('DEL', KEYS[3])
    redis.call('SET', KEYS[2], '1', 'PX', banMs)
    return result(2, now + banMs)
  end
end
return result(0, retryAt)
`;
