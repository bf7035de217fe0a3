/**
 * Rate-limit decisions for a batch of requests, in one round trip: for each request in arrival
 * order, its revocation, bans, every window, the charge and strikes, all or nothing, exactly as if
 * it were alone (a later request of the same account sees the earlier ones' charges). The
 * algorithm is `sliding-window.ts`'s, line for line; a batch of one is the single-request case.
 *
 * KEYS: the deny-list set first when ARGV 3 is '1' (standalone Redis; on a cluster it lives in
 *   another slot and is asked apart), then the accounts' hashes (a hash tag per account, so the
 *   batch runs on Redis Cluster when all its accounts share a slot).
 *   In an account's hash, per window (w = its first letter): `wt` total, `wf` first bucket, `wl`
 *   last bucket, and `w<slot>` the requests admitted in a bucket, its slot being bucket mod
 *   (buckets + 1): the buckets in use never span more than buckets + 1 in a row, so slots never
 *   collide, and field names stay 2-3 bytes (memory). Per misbehaving key: `b:<jti>` banned until
 *   (ms), `s:<jti>` strikes, `x:<jti>` when the strikes expire (ms).
 * ARGV: 1 now in ms, or '' for Redis TIME (one clock for every gateway instance, read once a batch)
 *       2 the number of requests, 3 '1' when KEYS[1] is the deny-list
 *       then per request (8 + 4 × windows fields):
 *         the index in KEYS of its account's hash (0: no limit, a revocation check alone),
 *         the key id (`jti`) whose revocation, bans and strikes apply ('' for none),
 *         '1' to refuse it when the deny-list holds it,
 *         strikes before a ban (0: no bans), strike window ms, ban ms,
 *         strikes collected locally since the last call (refusals answered from the deny cache),
 *         the number of windows, then per window: name, limit, window ms, buckets
 * Returns {now, then per request: outcome (1 admitted, 0 refused, 2 banned, 3 revoked),
 *          retryAt (-1: never, 0: none), then per window: total after this request, resetAt}.
 * A revoked request is refused before anything is read or charged.
 * The common path is one HMGET (totals, bounds, the current bucket, the key's ban) and one HSET
 * per request. Invariant: while a window's total is above 0, its first bucket holds requests, so
 * no bucket is read unless one leaves the window. Bucket numbers are formatted with %d before they
 * are stored: Lua 5.1 prints large numbers as 1.8e+09.
 */
export const RATE_LIMIT_SCRIPT = `
-- Locals, not globals: the script runs its loop once per request of the batch, and Lua 5.1 looks
-- globals up by name each time.
local ARGV, KEYS, call = ARGV, KEYS, redis.call
local tonumber, floor, ceil, max, format, sub, unpack = tonumber, math.floor, math.ceil, math.max, string.format, string.sub, unpack

local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = call('TIME')
  now = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
end
local requests = tonumber(ARGV[2])
local denyList = ARGV[3] == '1'

-- Field names per window letter, made once: 'mt', 'mf', 'ml' (minute), 'dt', 'df', 'dl' (day).
local names = {}
local function fields(p)
  local f = names[p]
  if f == nil then
    f = { p .. 't', p .. 'f', p .. 'l' }
    names[p] = f
  end
  return f
end

local function slot(w, bucket)
  return w.p .. format('%d', bucket % (w.buckets + 1))
end

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

-- Writes what changed in one HSET and appends the answer. An admission keeps the hash alive (TTL
-- set when a bucket is created: it then outlives its newest bucket's stay in the longest window);
-- anything else makes sure the hash has a TTL of at least ttlFloor.
local function finish(key, wins, n, set, longest, outcome, retryAt, admitted, newBucket, ttlFloor)
  out[#out + 1] = outcome
  out[#out + 1] = retryAt
  for k = 1, n do
    local w = wins[k]
    local f = fields(w.p)
    if w.total ~= w.wasTotal then set[#set + 1] = f[1] set[#set + 1] = format('%d', w.total) end
    if w.first ~= w.wasFirst then set[#set + 1] = f[2] set[#set + 1] = format('%d', w.first) end
    if w.last ~= w.wasLast then set[#set + 1] = f[3] set[#set + 1] = format('%d', w.last) end
    out[#out + 1] = w.total
    if w.total == 0 then out[#out + 1] = now else out[#out + 1] = (w.first + w.buckets + 1) * w.width end
  end
  if #set > 0 then call('HSET', key, unpack(set)) end
  if newBucket then
    call('PEXPIRE', key, ceil(longest))
  elseif not admitted and #set > 0 then
    local ttl = call('PTTL', key)
    if ttl == -1 or ttl < ttlFloor then call('PEXPIRE', key, ceil(max(ttlFloor, longest))) end
  end
end

-- One request; a: the offset of its fields in ARGV.
local function decide(a)
  local keyIndex, keyId = tonumber(ARGV[a + 1]), ARGV[a + 2]
  local n = tonumber(ARGV[a + 8])
  if ARGV[a + 3] == '1' and denyList and call('SISMEMBER', KEYS[1], keyId) == 1 then return padded(3, n) end
  if keyIndex == 0 then return padded(1, n) end
  local key = KEYS[keyIndex]
  local strikeLimit, strikeMs, banMs = tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6])
  local pending = tonumber(ARGV[a + 7])
  local wins, read, longest = {}, {}, 0

  for k = 1, n do
    local base = a + 8 + (k - 1) * 4
    -- Every field in the constructor: a table that grows field by field is rehashed each time.
    local ms, buckets = tonumber(ARGV[base + 3]), tonumber(ARGV[base + 4])
    local w = {
      p = sub(ARGV[base + 1], 1, 1), limit = tonumber(ARGV[base + 2]), ms = ms, buckets = buckets, width = ms / buckets, bucket = 0,
      total = 0, first = 0, last = 0, wasTotal = 0, wasFirst = 0, wasLast = 0, current = 0, count = 0,
    }
    w.bucket = floor(now / w.width)
    if w.ms + w.width > longest then longest = w.ms + w.width end
    wins[k] = w
    local f = fields(w.p)
    read[#read + 1] = f[1]
    read[#read + 1] = f[2]
    read[#read + 1] = f[3]
    read[#read + 1] = slot(w, w.bucket)
  end
  if keyId ~= '' then
    read[#read + 1] = 'b:' .. keyId
    read[#read + 1] = 's:' .. keyId
    read[#read + 1] = 'x:' .. keyId
  end
  local h = call('HMGET', key, unpack(read))

  for k = 1, n do
    local w, o = wins[k], (k - 1) * 4
    w.total, w.first, w.last = tonumber(h[o + 1]) or 0, tonumber(h[o + 2]) or 0, tonumber(h[o + 3]) or 0
    w.wasTotal, w.wasFirst, w.wasLast = w.total, w.first, w.last
    -- A clock that steps back stays in the newest bucket seen.
    w.current = max(w.bucket, w.last)
    if w.total > 0 and w.current == w.last then
      if w.current == w.bucket then w.count = tonumber(h[o + 4]) or 0 else w.count = tonumber(call('HGET', key, slot(w, w.current))) or 0 end
    else
      w.count = 0 -- the slot, if set, holds a bucket about to leave the window
    end
    -- Drop buckets that left the window, then any empty ones, so the first bucket holds requests.
    local lowest = w.current - w.buckets
    while w.total > 0 and w.first < lowest do
      local c = tonumber(call('HGET', key, slot(w, w.first))) or 0
      w.total = w.total - c
      call('HDEL', key, slot(w, w.first))
      w.first = w.first + 1
      while w.total > 0 and w.first <= w.last and (tonumber(call('HGET', key, slot(w, w.first))) or 0) == 0 do
        w.first = w.first + 1
      end
    end
    if w.total == 0 then w.first = w.current end
  end

  local set = {}
  local bannedUntil, strikes, strikesEnd = 0, 0, 0
  if keyId ~= '' then
    bannedUntil = tonumber(h[n * 4 + 1]) or 0
    strikes, strikesEnd = tonumber(h[n * 4 + 2]) or 0, tonumber(h[n * 4 + 3]) or 0
    if bannedUntil > now then return finish(key, wins, n, set, longest, 2, bannedUntil, false, false, bannedUntil - now) end
    if bannedUntil > 0 then call('HDEL', key, 'b:' .. keyId) end
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
          toFree = toFree - (tonumber(call('HGET', key, slot(w, b))) or 0)
          if toFree <= 0 then at = (b + w.buckets + 1) * w.width break end
        end
      end
      if at == -1 or retryAt == -1 then retryAt = -1 elseif at > retryAt then retryAt = at end
    end
  end

  if not blocked then
    local newBucket = false
    for k = 1, n do
      local w = wins[k]
      if w.total == 0 then w.first = w.current end
      if w.count == 0 then newBucket = true end
      set[#set + 1] = slot(w, w.current)
      set[#set + 1] = format('%d', w.count + 1)
      w.total = w.total + 1
      w.last = w.current
    end
    return finish(key, wins, n, set, longest, 1, 0, true, newBucket, 0)
  end

  if keyId ~= '' and strikeLimit > 0 then
    if strikesEnd <= now then
      strikes, strikesEnd = 0, now + strikeMs
    end
    strikes = strikes + 1 + pending
    if strikes >= strikeLimit then
      call('HDEL', key, 's:' .. keyId, 'x:' .. keyId)
      set[#set + 1] = 'b:' .. keyId
      set[#set + 1] = format('%d', now + banMs)
      return finish(key, wins, n, set, longest, 2, now + banMs, false, false, banMs)
    end
    set[#set + 1] = 's:' .. keyId
    set[#set + 1] = format('%d', strikes)
    set[#set + 1] = 'x:' .. keyId
    set[#set + 1] = format('%d', strikesEnd)
    return finish(key, wins, n, set, longest, 0, retryAt, false, false, strikesEnd - now)
  end
  return finish(key, wins, n, set, longest, 0, retryAt, false, false, 0)
end

local a = 3
for r = 1, requests do
  decide(a)
  a = a + 8 + 4 * tonumber(ARGV[a + 8])
end
return out
`;
