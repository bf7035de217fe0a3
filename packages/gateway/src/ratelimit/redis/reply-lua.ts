/**
 * The part of the rate-limit script (`redis-script.ts`) that writes its reply, as `redis-script.ts`
 * describes it, and finds which windows refuse a request. It expects the script's locals `now`,
 * `retryOf`, `resetOf` and `spack`, and defines `out` (the reply's values, `now` first),
 * `packed(values)` (the reply as it is sent), `padded(outcome, n)`, `answer(all, outcome, retryAt,
 * binding)`, `refusal(all, cost, own)` and `combined(a, b)`.
 */
export const REPLY_LUA = `
-- The reply's values (set to { now } at the start of every call: redis-script.ts).
local out

-- The reply as it is sent: every value a little-endian double, one string. Redis turns a table
-- into one RESP integer per value, which costs it more than this, and the gateway's client far
-- more to read. Packed PACK_RUN at a time (unpack's values go on Lua's stack).
local PACK_RUN = 512
local function packed(values)
  local n, parts = #values, {}
  for i = 1, n, PACK_RUN do
    local j = i + PACK_RUN - 1
    if j > n then j = n end
    parts[#parts + 1] = spack('<' .. string.rep('d', j - i + 1), unpack(values, i, j))
  end
  return table.concat(parts)
end

-- Appends an answer without reading (revoked, or no limit to check) for n windows.
local function padded(outcome, n)
  out[#out + 1] = outcome
  out[#out + 1] = 0
  out[#out + 1] = 0
  for k = 1, n do
    out[#out + 1] = 0
    out[#out + 1] = now
  end
end

-- Appends the answer: the outcome, retryAt, the refusing window, and per window its total and reset.
local function answer(all, outcome, retryAt, binding)
  out[#out + 1] = outcome
  out[#out + 1] = retryAt
  out[#out + 1] = binding
  for k = 1, #all do
    local e = all[k]
    out[#out + 1] = e.w[3]
    out[#out + 1] = resetOf(e.win, e.w)
  end
end

-- Of the refusing windows of a kind of layer (the key's own: own = true, at the request's cost;
-- the ceilings at 1: they count requests), the latest retry (-1 never, which wins) and its window:
-- {retryAt, index}, or nil when none refuses.
local function refusal(all, cost, own)
  local found
  for k = 1, #all do
    local e = all[k]
    if e.own == own and e.w[3] + cost > e.win[2] then
      local at = retryOf(e.win, e.w, cost)
      if found == nil or (found[1] ~= -1 and (at == -1 or at > found[1])) then found = { at, k } end
    end
  end
  return found
end

local function combined(a, b)
  if a == nil or b == nil then return a or b end
  if a[1] == -1 then return a end
  if b[1] == -1 or b[1] > a[1] then return b end
  return a
end
`;
