/**
 * The part of the rate-limit script (`redis-script.ts`) that reads and writes accounts on the
 * general path (the common one, `common-path-lua.ts`, works on the bytes). An account's key is
 * one string: its whole state, MessagePack-encoded (`cmsgpack`, built into Redis's Lua, reads it;
 * `account-layout-lua.ts` writes it), read at the start of the call with all of the call's keys
 * (one MGET; a GET where that found no string) and written back with one SET at the end of the
 * call when a request changed it. The state is an array of:
 *   its windows, flat: per window its letter (m, d), its last bucket, the requests it counts, and
 *     the array of its buckets' counts from the first to the last (empty when it counts none: the
 *     last bucket is kept, so a clock that steps back stays in it);
 *   its keys' bans and strikes, flat: per key its id (`jti`), banned until (ms, 0 for none),
 *     strikes, when the strikes expire (ms);
 *   when the key's TTL ends (ms);
 *   only while the account has any, its leases and their tally (see `lease-lua.ts`): per lease its
 *     holder (a gateway process), units, when it was charged and when it ends (ms), flat; then the
 *     month (its start, ms) and the units of leases given up in it ({start, units}), or nothing.
 * The release before wrote the same array with `cmsgpack.pack`; it is read alike, and written back
 * in this release's layout the first time a request changes it. A key in the layout of the release
 * before that (a hash, see `convertWindows` below) is converted the first time a call meets it,
 * and written back as a string at the end of that call, whatever its requests decide: the
 * decisions go on exactly as the older release would have made them.
 * An account the common path read or wrote earlier in the call is taken from it (`raws`), and one
 * it wrote is then written back by this part alone (`written`).
 * It expects the script's locals `now`, `call`, `pcall`, `encode`, `decode`, `type`, `sub`, `ceil`
 * and `encodeAccount`, and defines `raws`, `written`, `prefetch(from)` (every key of the call,
 * read at its start), `load(key, policy)`, `keep(key, state, policy)` (write it back, living as
 * long as the policy needs) and `saveTouched()` (write back what was kept, once each).
 */
export const ACCOUNT_STATE_LUA = `
-- Accounts met in this call: key -> {w = {letter -> window}, bans = {jti -> {until, strikes, strikesEnd}},
-- ttl: how long the key must live from now (0: unchanged, not written), expires: when its TTL ends (ms)}.
-- A window is {first, last, total, counts}: counts[1] is the first bucket's, in a row to the last
-- (an array that MessagePack decodes in C, so the script never loops over it to load an account).
-- (Set at the start of every call, as the next two: redis-script.ts.)
local states, touched
-- The common path's accounts (common-path-lua.ts): key -> its bytes as read (false: no key) or
-- as last written in this call; key -> how long it must live from now, for those it wrote.
local raws, written

-- Reads the call's keys from KEYS[from] on with one MGET (512 at a time): a command costs Redis's
-- Lua bridge more than its read. Strings are kept; a key missing or of another type (a hash of the
-- release before) is read again where it is met.
local function prefetch(from)
  for i = from, #KEYS, 512 do
    local found = call('MGET', unpack(KEYS, i, math.min(i + 511, #KEYS)))
    for k = 1, #found do if found[k] then raws[KEYS[i + k - 1]] = found[k] end end
  end
end

-- Marks the account to be written back: its TTL outlives every bucket it may count (a window
-- and a bucket of the longest window of the policies met), and its bans and strikes.
local function keep(key, state, policy)
  if state.ttl == 0 then touched[#touched + 1] = key end
  if policy.longest > state.ttl then state.ttl = policy.longest end
end

-- The release before kept an account in a hash ('hash': its fields, from HGETALL, by name): per
-- window letter p, 'pt' total, 'pf' first bucket, 'pl' last bucket, and 'p<slot>' the count of
-- the bucket whose slot is bucket mod (buckets + 1); per key id, 'b:<jti>' banned until (ms),
-- 's:<jti>' strikes, 'x:<jti>' when the strikes expire (ms). A slot is known only with the
-- window's bucket count, so windows are converted per policy, each letter the first time a
-- policy of the call has it (letters no policy of the call has are dropped).
local function convertWindows(state, policy)
  local hash, wins = state.hash, policy.wins
  for k = 1, policy.n do
    local p, buckets = wins[k][1], wins[k][4]
    if state.w[p] == nil then
      local first, last = tonumber(hash[p .. 'f']), tonumber(hash[p .. 'l']) or 0
      local total, counts = 0, {}
      -- The older release kept first..last within buckets + 1 while it counted requests; a hash
      -- that does not is read as an empty window (only its last bucket kept, against a clock
      -- stepping back), and the total is what the buckets hold.
      if (tonumber(hash[p .. 't']) or 0) > 0 and first ~= nil and first <= last and last - first <= buckets then
        for b = first, last do
          local c = tonumber(hash[p .. string.format('%d', b % (buckets + 1))]) or 0
          counts[b - first + 1] = c
          total = total + c
        end
      end
      if total > 0 then state.w[p] = { first, last, total, counts } else state.w[p] = { last + 1, last, 0, {} } end
    end
  end
end

-- Its keys' bans and strikes, once.
local function convertBans(state)
  local bans = state.bans
  for field, value in pairs(state.hash) do
    local kind = sub(field, 1, 2)
    local at = (kind == 'b:' and 1) or (kind == 's:' and 2) or (kind == 'x:' and 3)
    if at then
      local id = sub(field, 3)
      if bans[id] == nil then bans[id] = { 0, 0, 0 } end
      bans[id][at] = tonumber(value) or 0
    end
  end
end

-- The account, read once a call; a request's policy converts the windows it has of a hash.
local function load(key, policy)
  local state = states[key]
  if state ~= nil then
    if state.hash ~= nil then
      convertWindows(state, policy)
      keep(key, state, policy)
    end
    return state
  end
  state = { w = {}, bans = {}, ttl = 0, expires = 0, leases = {} }
  states[key] = state
  -- pcall: a key of another type errs (WRONGTYPE); the hash of the release before is converted
  -- (read whole, once: the SET at the end of the call replaces it), anything else reads as empty.
  local raw = raws[key]
  if raw == nil then raw = pcall('GET', key) end
  if written[key] ~= nil then
    -- Changed by the common path earlier in this call: written back from here on, by save().
    state.ttl = written[key]
    touched[#touched + 1] = key
    written[key] = nil
  end
  if type(raw) == 'table' then
    local fields = pcall('HGETALL', key)
    if type(fields) == 'table' and fields.err == nil then
      local hash = {}
      for i = 1, #fields, 2 do hash[fields[i]] = fields[i + 1] end
      state.hash = hash
      convertBans(state)
      convertWindows(state, policy)
      keep(key, state, policy)
    end
    return state
  end
  if type(raw) ~= 'string' then return state end
  local s = decode(raw)
  local wins, bans = s[1], s[2]
  state.expires = s[3] or 0
  state.leases, state.tally = s[4] or {}, s[5]
  for i = 1, #wins, 4 do
    local last, counts = wins[i + 1], wins[i + 3]
    state.w[wins[i]] = { last - #counts + 1, last, wins[i + 2], counts }
  end
  for i = 1, #bans, 4 do
    state.bans[bans[i]] = { bans[i + 1], bans[i + 2], bans[i + 3] }
  end
  return state
end

local function save(key, state)
  local bans = {}
  for id, ban in pairs(state.bans) do
    if ban[1] > now or ban[3] > now then
      bans[#bans + 1] = id
      bans[#bans + 1] = ban[1]
      bans[#bans + 1] = ban[2]
      bans[#bans + 1] = ban[3]
    end
  end
  -- Setting an expiry costs Redis about as much as the write itself: the TTL is set a 24th longer
  -- than needed, and kept (KEEPTTL) by the writes until what is left of it no longer suffices.
  local ttl = nil
  if state.expires < now + state.ttl then ttl = ceil(state.ttl * 25 / 24) end
  local expires = ttl == nil and state.expires or now + ttl
  local raw
  -- Leases and their tally only while there are some: most accounts never have any, and are
  -- written in the common path's layout (account-layout-lua.ts); one with leases is the longer
  -- MessagePack array, which the common path leaves to decide().
  if #state.leases > 0 or state.tally ~= nil then
    local wins = {}
    for letter, w in pairs(state.w) do
      local counts = w[4]
      if w[3] == 0 then counts = {} end
      wins[#wins + 1] = letter
      wins[#wins + 1] = w[2]
      wins[#wins + 1] = w[3]
      wins[#wins + 1] = counts
    end
    raw = encode({ wins, bans, expires, state.leases, state.tally })
  else
    raw = encodeAccount(state.w, bans, expires)
  end
  if ttl == nil then
    call('SET', key, raw, 'KEEPTTL')
  else
    call('SET', key, raw, 'PX', ttl)
  end
end

-- Writes back every account a request changed, once, whatever number of its requests the call held.
local function saveTouched()
  for _, key in ipairs(touched) do
    local state = states[key]
    for _, ban in pairs(state.bans) do
      if ban[1] - now > state.ttl then state.ttl = ban[1] - now end
      if ban[3] - now > state.ttl then state.ttl = ban[3] - now end
    end
    save(key, state)
  end
end
`;
