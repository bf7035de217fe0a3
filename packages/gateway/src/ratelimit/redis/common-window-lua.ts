/**
 * The part of the rate-limit script (`redis-script.ts`) that works on one window of an account's
 * bytes (`account-layout-lua.ts`) for the common path (`common-path-lua.ts`): it reads the window
 * where it starts, brings it to now and charges it, as `window-lua.ts` does on tables, and returns
 * the window's new bytes. It expects the script's locals `now`, `floor`, `sub`, `monthStart`,
 * `monthEndOf` and the layout's, and defines `cMet`, `cTotal`, `cReset`, `windowAt(s, p)`,
 * `charged(s, p, at, wins, cost, parts, m)` and `fresh(win, k, cost, parts, m)`.
 */
export const COMMON_WINDOW_LUA = `
local rep = string.rep
-- Per window of the request's policy, by its place: met, its total and its reset. Reused by every
-- request (no table made per request).
local cMet, cTotal, cReset = {}, {}, {}
local WIDTH_OF = { [204] = 2, [205] = 3, [206] = 5, [207] = 9 }
local ZERO = { [1] = '\\0', [2] = '\\204\\0', [3] = '\\205\\0\\0', [5] = '\\206\\0\\0\\0\\0', [9] = '\\207\\0\\0\\0\\0\\0\\0\\0\\0' }

-- Of the window whose bytes start at p (its 0xa1): its last bucket, total, number of counts, where
-- the first is, their width and where the window's bytes end; nil when they are not as written here.
local function windowAt(s, p)
  if byte(s, p) ~= 161 then return nil end
  local last, lw = intAt(s, p + 2)
  if last == nil then return nil end
  local q = p + 2 + lw
  local total, tw = intAt(s, q)
  if total == nil then return nil end
  q = q + tw
  if byte(s, q) ~= 220 then return nil end
  local a, b = byte(s, q + 1, q + 2)
  local n, width = a * 256 + b, 1
  q = q + 3
  if n > 0 then
    local _, cw = intAt(s, q)
    if cw == nil then return nil end
    width = cw
  end
  return last, total, n, q, width, q + n * width
end

-- A sliding window's first bytes, in one struct.pack (arithmetic and string.char cost more): 0xa1,
-- its letter, its last bucket and total (0xce and 4 bytes each: the bucket numbers of any window,
-- and totals, hold in them), the array of its counts.
local HEAD_OF = '>BBBI4BI4BH'

-- A count of a width over 1 at p (0xcc and 1 byte, 0xcd and 2 the most often: one call into C).
local function wideAt(s, p, width)
  if width == 3 then
    local _, a, b = byte(s, p, p + 2)
    return a * 256 + b
  end
  return (intAt(s, p))
end

-- A month's window (its last is its start, in ms: 0xcf and 8 bytes), charged as charge() does.
local function chargedMonth(s, p, win, cost, parts, m, k)
  local last, total, n, _, _, ends = windowAt(s, p)
  if last == nil or n > 0 then return nil end
  if last < monthStart then last, total = monthStart, 0 end
  if total + cost > win[2] then return nil end
  cTotal[k], cReset[k] = total + cost, monthEndOf(last)
  parts[m + 1] = char(161, byte(s, p + 1)) .. headInt(last) .. headInt(total + cost) .. '\\220\\0\\0'
  return m + 1, ends
end

-- A window of the policy the account has none of yet (a new account, or a plan that gained a
-- window), charged cost as charge() does an empty window; its bytes go to parts after m. Returns
-- the last piece's place, or nil when cost does not fit.
local function fresh(win, k, cost, parts, m)
  if cost > win[2] then return nil end
  cTotal[k] = cost
  if win[6] then
    cReset[k] = monthEndOf(monthStart)
    parts[m + 1] = char(161, byte(win[1])) .. headInt(monthStart) .. headInt(cost) .. '\\220\\0\\0'
    return m + 1
  end
  local cur = win[7]
  if cost > 4294967295 or cur > 4294967295 then return nil end
  cReset[k] = (cur + win[4] + 1) * win[5]
  parts[m + 1] = spack(HEAD_OF, 161, byte(win[1]), 206, cur, 206, cost, 220, 1)
  parts[m + 2] = countOf(cost, widthOf(cost))
  return m + 2
end

-- The window at p of s: when it is one of the policy's (at: its windows by their letter's byte)
-- not met yet, brought to now and charged cost, as bring() and charge() do, its total and reset in
-- cTotal and cReset; any other kept as is. Its new bytes go to parts after m (pieces, joined once
-- for the whole account); returns the last piece's place and where its old bytes end, or nil when
-- cost does not fit (or the bytes are not as written here). win[7]: the bucket now falls in.
local function charged(s, p, at, wins, cost, parts, m)
  local h, letter, lt, l1, l2, l3, l4, tt, t1, t2, t3, t4, ct, n1, n2, c1 = byte(s, p, p + 15)
  local k = at[letter]
  if k == nil or cMet[k] then
    local ends = select(6, windowAt(s, p))
    if ends == nil then return nil end
    parts[m + 1] = sub(s, p, ends - 1)
    return m + 1, ends
  end
  cMet[k] = true
  local win = wins[k]
  if win[6] then return chargedMonth(s, p, win, cost, parts, m, k) end
  if h ~= 161 or lt ~= 206 or tt ~= 206 or ct ~= 220 then return nil end
  local last, total, n, q, width = ((l1 * 256 + l2) * 256 + l3) * 256 + l4, ((t1 * 256 + t2) * 256 + t3) * 256 + t4, n1 * 256 + n2, p + 15, 1
  if n > 0 and c1 >= 128 then
    width = WIDTH_OF[c1]
    if width == nil then return nil end
  end
  local ends = q + n * width
  local cur = win[7]
  if last > cur then cur = last end
  -- Drop buckets that left the window, then empty ones, so the first bucket holds requests.
  local first, dropped = last - n + 1, 0
  if total > 0 then
    local lowest = cur - win[4]
    while dropped < n do
      local c
      if width ~= 1 then
        c = wideAt(s, q + dropped * width, width)
      elseif dropped == 0 then
        c = c1
      else
        c = byte(s, q + dropped)
      end
      if first + dropped >= lowest and c ~= 0 then break end
      total = total - c
      dropped = dropped + 1
    end
  end
  -- (and the bucket and the total hold in 4 bytes: all of them, this century)
  if total + cost > win[2] or total + cost > 4294967295 or cur > 4294967295 then return nil end
  cTotal[k] = total + cost
  if total == 0 then
    cReset[k] = (cur + win[4] + 1) * win[5]
    parts[m + 1] = spack(HEAD_OF, 161, letter, 206, cur, 206, cost, 220, 1)
    parts[m + 2] = countOf(cost, widthOf(cost))
    return m + 2, ends
  end
  cReset[k] = (first + dropped + win[4] + 1) * win[5]
  local from, kept, c, oldEnds = q + dropped * width, n - dropped, cost, ends
  if cur == last then
    ends = ends - width
    if width == 1 then c = byte(s, ends) + cost else c = wideAt(s, ends, width) + cost end
  else
    kept = kept + cur - last
  end
  if c > WIDEST[width] then return nil end
  m = m + 1
  parts[m] = spack(HEAD_OF, 161, letter, 206, cur, 206, total + cost, 220, kept)
  if ends > from then
    m = m + 1
    parts[m] = sub(s, from, ends - 1)
  end
  -- Buckets without requests between the last one and this one count 0.
  if cur > last + 1 then
    m = m + 1
    parts[m] = rep(ZERO[width], cur - last - 1)
  end
  if width == 1 then parts[m + 1] = char(c) else parts[m + 1] = countOf(c, width) end
  return m + 1, oldEnds
end
`;
