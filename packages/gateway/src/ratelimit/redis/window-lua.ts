/**
 * The part of the rate-limit script (`redis-script.ts`) that works on one window, of either kind,
 * line for line as `window-state.ts` and `sliding-window.ts` do in process. A window is
 * {first, last, total, counts} (see `account-state-lua.ts`); a policy's window is {letter, limit,
 * ms, buckets, width, month} (see `call-header-lua.ts`), a month (`month` true) counting in one
 * bucket, the month itself, whose start is its `last`. It expects the script's locals `now`, `floor`, `remove`,
 * `monthStart`, `monthEnd` and `monthEndOf`, and defines `bring(win, w)` (returns where `now`
 * counts), `retryOf(win, w, cost)` (ms when cost more units fit, -1 never), `resetOf(win, w)`
 * and `charge(win, w, cur, cost)`.
 */
export const WINDOW_LUA = `
local function bring(win, w)
  if win[6] then
    -- A new month starts the count again; a clock that steps back stays in the newest month seen.
    if w[2] < monthStart then w[1], w[2], w[3], w[4] = monthStart, monthStart, 0, {} end
    return w[2]
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
  return cur
end

local function retryOf(win, w, cost)
  if win[2] < cost then return -1 end
  if win[6] then return monthEndOf(w[2]) end
  local toFree, counts = w[3] + cost - win[2], w[4]
  for j = 1, #counts do
    toFree = toFree - counts[j]
    if toFree <= 0 then return (w[1] + j - 1 + win[4] + 1) * win[5] end
  end
  return -1
end

local function resetOf(win, w)
  if win[6] then return monthEndOf(w[2]) end
  if w[3] == 0 then return now end
  return (w[1] + win[4] + 1) * win[5]
end

local function charge(win, w, cur, cost)
  w[3] = w[3] + cost
  if win[6] then return end
  local counts = w[4]
  -- Buckets without requests between the last one and this one count 0.
  for j = #counts + 1, cur - w[1] do counts[j] = 0 end
  local j = cur - w[1] + 1
  counts[j] = (counts[j] or 0) + cost
  w[2] = cur
end
`;
