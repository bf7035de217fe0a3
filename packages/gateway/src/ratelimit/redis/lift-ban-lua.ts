import { ACCOUNT_LAYOUT_LUA } from './account-layout-lua.js';
import { ACCOUNT_STATE_LUA } from './account-state-lua.js';

/**
 * Lifts one key's ban in an account's state (the admin API's `DELETE /admin/bans/{jti}`), with
 * the rate-limit script's own reading and writing of accounts (`account-state-lua.ts`, in the layout
 * of `account-layout-lua.ts`), so that
 * the state is read and written back exactly as the script keeps it. KEYS[1]: the account's key;
 * ARGV[1]: the key id, ARGV[2]: now in ms, or '' for Redis TIME (as the rate-limit script's ARGV 1). The account's windows and its other keys' bans and strikes are kept as
 * they are, and so is its time to live. Returns 1 when the key was banned, else 0 (nothing written).
 */
export const LIFT_BAN_SCRIPT = `
local ARGV, KEYS, call, pcall = ARGV, KEYS, redis.call, redis.pcall
local tonumber, floor, ceil, sub, type, remove = tonumber, math.floor, math.ceil, string.sub, type, table.remove
local encode, decode = cmsgpack.pack, cmsgpack.unpack
-- Redis's clock, as the rate-limit script's, or the tests' (ARGV 2).
local now
if ARGV[2] ~= nil and ARGV[2] ~= '' then
  now = tonumber(ARGV[2])
else
  local t = call('TIME')
  now = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
end

${ACCOUNT_LAYOUT_LUA}
${ACCOUNT_STATE_LUA}
-- The accounts met (one), as the rate-limit script sets them at the start of a call.
states, touched, raws, written = {}, {}, {}, {}

local key, id = KEYS[1], ARGV[1]
-- No policy: a state in the layout of the release before keeps its windows (nothing converts them).
local state = load(key, { wins = {}, n = 0, longest = 0 })
local ban = state.bans[id]
if ban == nil then return 0 end
local banned = ban[1] > now
-- Neither banned nor striking: nothing to lift, nothing written.
if not banned and not (ban[2] > 0 and ban[3] > now) then return 0 end
if state.hash ~= nil then
  call('HDEL', key, 'b:' .. id, 's:' .. id, 'x:' .. id)
else
  state.bans[id] = nil
  -- A state whose time is up (Redis has not dropped it yet) is written to go at once.
  if state.expires < now then state.ttl = 1 end
  save(key, state)
end
if banned then return 1 end
return 0
`;
