/**
 * The part of the rate-limit script (`redis-script.ts`) that knows an account's bytes: the layout
 * it writes, and how to read a number in it without decoding the whole string.
 *
 * An account is the MessagePack array of the release before ({windows, bans, expires}, see
 * `account-state-lua.ts`), written so that its parts sit at places a reader can find by offsets:
 *   0xdc 0x00 0x03          the array of 3, as array16 (the release before wrote fixarray 0x93:
 *                           that is how the two are told apart; both decode alike)
 *   0xdc n n                its windows, flat: 4 values a window, as array16
 *   per window: 0xa1 letter (a string of one byte), its last bucket and its total (0xce and 4
 *     bytes, or 0xcf and 8), the array of its counts (0xdc n n) and the counts, all of one width
 *     in the window: the narrowest that holds the largest (1 byte under 128, 0xcc and 1, 0xcd and
 *     2, 0xce and 4, 0xcf and 8)
 *   its bans as `cmsgpack` writes them (0x90 when none)
 *   when the key's TTL ends, 0xcf and 8 bytes (ms).
 * Any MessagePack reader reads it as the release before's layout (the older script does), and
 * any account in that layout is read whole with `cmsgpack.unpack`; the common path
 * (`common-path-lua.ts`) reads and writes this one by offsets, building no table.
 * It expects the script's locals `floor`, `byte` and `encode`, and defines `char`, `HEAD`,
 * `intAt(s, p)` (the number at p and its width in bytes, nil for anything but an unsigned
 * integer), `headInt(v)`, `WIDEST` and `countOf(v, width)` (the value at that width),
 * `widthOf(v)` (the narrowest width that holds v) and `encodeAccount(state)`.
 */
export const ACCOUNT_LAYOUT_LUA = `
local char, spack, sunpack = string.char, struct.pack, struct.unpack
local HEAD = '\\220\\0\\3'
-- The largest count each width holds (by width in bytes, type byte included).
local WIDEST = { [1] = 127, [2] = 255, [3] = 65535, [5] = 4294967295, [9] = 9007199254740991 }

local function intAt(s, p)
  local t = byte(s, p)
  if t == nil then return nil end
  if t < 128 then return t, 1 end
  if t == 204 then return byte(s, p + 1), 2 end
  if t == 205 then
    local a, b = byte(s, p + 1, p + 2)
    return a * 256 + b, 3
  end
  if t == 206 then return (sunpack('>I4', s, p + 1)), 5 end
  if t == 207 then return (sunpack('>I8', s, p + 1)), 9 end
  return nil
end

local function widthOf(v)
  if v < 128 then return 1 elseif v < 256 then return 2 elseif v < 65536 then return 3 elseif v < 4294967296 then return 5 end
  return 9
end

-- v (a whole number, 0 or more) at the width given: one that holds it.
local function countOf(v, width)
  if width == 1 then return char(v) end
  if width == 2 then return char(204, v) end
  if width == 3 then return spack('>BH', 205, v) end
  if width == 5 then return spack('>BI4', 206, v) end
  return spack('>BI8', 207, v)
end

-- A window's last bucket or total: 4 bytes, or 8 when it needs them (a month's start, in ms).
local function headInt(v)
  if v < 4294967296 then return spack('>BI4', 206, v) end
  return spack('>BI8', 207, v)
end

local function arrayOf(n)
  return char(220, floor(n / 256), n % 256)
end

-- The account's bytes: state.w (letter -> {first, last, total, counts}), bans (already flat, as
-- save() keeps them) and when the TTL ends.
local function encodeAccount(w, bans, expires)
  local parts, windows = { HEAD, '' }, 0
  for letter, win in pairs(w) do
    local counts = win[4]
    if win[3] == 0 then counts = {} end
    local n, width = #counts, 1
    for j = 1, n do
      local wj = widthOf(counts[j])
      if wj > width then width = wj end
    end
    parts[#parts + 1] = char(161) .. letter .. headInt(win[2]) .. headInt(win[3]) .. arrayOf(n)
    for j = 1, n do parts[#parts + 1] = countOf(counts[j], width) end
    windows = windows + 1
  end
  parts[2] = arrayOf(windows * 4)
  parts[#parts + 1] = encode(bans)
  parts[#parts + 1] = spack('>BI8', 207, expires)
  return table.concat(parts)
end
`;
