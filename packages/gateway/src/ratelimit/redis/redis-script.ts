import { luaCode } from '../../redis/index.js';
import { ACCOUNT_LAYOUT_LUA } from './account-layout-lua.js';
import { ACCOUNT_STATE_LUA } from './account-state-lua.js';
import { CALL_HEADER_LUA, CALL_START_LUA } from './call-header-lua.js';
import { COMMON_PATH_LUA } from './common-path-lua.js';
import { COMMON_WINDOW_LUA } from './common-window-lua.js';
import { GENERAL_PATH_LUA } from './general-path-lua.js';
import { LEASE_LUA } from './lease-lua.js';
import { LEASE_RECORD_LUA } from './lease-record-lua.js';
import { REPLY_LUA } from './reply-lua.js';
import { WINDOW_LUA } from './window-lua.js';

/**
 * Rate-limit decisions for a batch of requests, in one round trip: for each request in arrival
 * order, its revocation, bans, every window of every layer, the charge and strikes, all or
 * nothing, exactly as if it were alone (a later request of the same account sees the earlier
 * ones' charges). The algorithm is `memory-limiter.ts`'s, line for line; a batch of one is the
 * single-request case.
 *
 * KEYS: the deny-list set first when ARGV 3 is '1' (standalone Redis; on a cluster it lives in
 *   another slot and is asked apart), then the keys of the accounts and layers (a hash tag each,
 *   so the batch runs on Redis Cluster when all its keys share a slot).
 * An account's key is one string: its whole state (see `account-state-lua.ts`); so is a layer's.
 * ARGV: 1 now in ms, or '' for Redis TIME (one clock for every gateway instance, read once a call)
 *       2 the number of requests, 3 '1' when KEYS[1] is the deny-list, 4 the number of policies,
 *       5 the deadline (ms, Redis's clock; '' for none): a call started after it returns {now} alone
 *       6 the gateway process that sends the call (the holder of the leases it asks for and gives back)
 *       7 the number of month starts that follow (0, or 4 when a policy has a month), then those
 *         starts, in order: the month `now` falls in is picked from them (see `call-header-lua.ts`)
 *       then per policy (4 + 4 × windows fields): strikes before a ban (0: no bans), strike window
 *         ms, ban ms, the number of windows, then per window: letter (m, d, M), limit, window ms,
 *         buckets (a month: 0 and 0)
 *       then one string: every request, packed, in one of two forms (`redis-call.ts` gives their
 *         bytes). Its short form, for a request that asks only to be decided and charged (no peek,
 *         no shadow, no layer, no lease, no strike pending: most of them), is 5 fields: minus the
 *         index in KEYS of its account's key, 1 to refuse it when the deny-list holds it, its
 *         policy's number, its cost and its key id. Its full form starts alike with the index in
 *         KEYS of its account's key (0: no limit, a revocation check alone), and goes on: strikes
 *         collected locally since the last call (refusals answered from the deny cache), its
 *         mode: 0 decide, 1 peek (decide as for any request, then charge nothing, count no strike
 *         and keep nothing: GET /v1/usage), 2 give a lease back and decide nothing; 1 when its
 *         plan is in shadow (computed, never enforced), the number of further layers, then per
 *         layer the index in KEYS of its key and its policy's number; then the lease it asks for
 *         (units; 0: none, and none is granted to a request with layers, in shadow or a peek), and
 *         the units of an earlier lease it gives back unused (0 for a lease all used: its record
 *         goes) with when it was charged (ms, Redis's clock; 0: none), taken back before it is
 *         decided (`lease-lua.ts`). The key id (`jti`) is the one whose revocation, bans and
 *         strikes apply ('' for none); a policy's number counts from 1. One string, not a field
 *         each: each argument costs Redis and the client its own work, 5 or more a request.
 * Returns, as little-endian doubles in one string (`reply-lua.ts`), {now, then per request:
 *          outcome (1 admitted, 0 refused, 2 banned, 3 revoked, 4 admitted where its plan in
 *          shadow would have refused, 5 refused only for units leased and not
 *          given back, no strike counted; for a peek, what the request would get),
 *          retryAt (-1: never, 0: none), the refusing window (its place among the request's
 *          windows, from 1; 0: none), then per window of every layer: total after this request
 *          (before it, for a peek; a lease granted included), resetAt; then, when it asked for a
 *          lease, the units granted (0: none) and when they end (ms, Redis's clock); for a peek, the
 *          units of the month no holder of a lease has accounted for (`lease-record-lua.ts`)};
 *          an admission of the common path (`common-path-lua.ts`) is answered in a short form,
 *          outcome 6 and then its windows (no retryAt, no refusing window).
 * A revoked request is refused before anything is read or charged. The deny-list is asked once a
 * call (SMISMEMBER) for every request that checks revocation.
 *
 * One text, run two ways (`lua-library.ts`): as a library of Redis Functions, whose functions are
 * made once and serve every call (FCALL, Redis 7 and later), and as a script (EVALSHA), which makes
 * them again at each call. Either way a call is `run(KEYS, ARGV)`, which sets the call's own
 * state first (the header's, and the tables of accounts met and of the reply).
 */
const RATE_LIMIT_LUA = `
-- Locals, not globals: Lua 5.1 looks globals up by name each time. The first four are set at the
-- start of every call (run, below): made once, the script's functions serve every call after.
local KEYS, ARGV, call, pcall
local tonumber, floor, ceil, sub, type, remove, byte = tonumber, math.floor, math.ceil, string.sub, type, table.remove, string.byte
local encode, decode = cmsgpack.pack, cmsgpack.unpack

${CALL_HEADER_LUA}
${ACCOUNT_LAYOUT_LUA}
${ACCOUNT_STATE_LUA}
${WINDOW_LUA}
${LEASE_RECORD_LUA}
${LEASE_LUA}
${REPLY_LUA}
${COMMON_WINDOW_LUA}
${COMMON_PATH_LUA}
${GENERAL_PATH_LUA}
local function run(keys, args)
  KEYS, ARGV, call, pcall = keys, args, redis.call, redis.pcall
${CALL_START_LUA}
  -- The call's own tables (account-state-lua.ts, common-path-lua.ts, reply-lua.ts).
  states, touched, raws, written, writtenKeys, out = {}, {}, {}, {}, {}, { now }
  -- Every account and layer of the call, read at once (the deny-list, a set, apart).
  prefetch(denyList and 2 or 1)

  local p = 1
  for i = 1, requests do
    leaseUnits, leaseEnds, peekUnaccounted = 0, 0, 0
    local key, _, policy, cost, idLength, q = sunpack(PREFIX, packedRequests, p)
    local at, strikes, mode, shadow, extra, want, back, backAt, plain = p, 0, 0, false, 0, 0, 0, 0, key < 0
    q = q + idLength
    if plain then
      -- The short form: decided and charged at its cost, nothing else.
      key, p = -key, q
    else
      strikes, mode, shadow, extra, q = sunpack(TAIL, packedRequests, q)
      want, back, backAt, p = sunpack(LEASE, packedRequests, q + 8 * extra)
      shadow = shadow == 1
      plain = strikes == 0 and mode == 0 and not shadow and extra == 0 and want == 0 and back == 0
    end
    -- The common request without a table (common-path-lua.ts); any other, or one it would refuse, here.
    if not (plain and common(i, key, policy, cost)) then decide(i, at, key, policy, strikes, mode, cost, shadow, extra, want, back, backAt) end
    if mode == 1 then out[#out + 1] = peekUnaccounted end
    if want > 0 then
      out[#out + 1] = leaseUnits
      out[#out + 1] = leaseEnds
    end
  end
  saveTouched()
  saveWritten()
  return packed(out)
end
`;

const RATE_LIMIT = luaCode('animal_store_rate_limit', RATE_LIMIT_LUA);
/** The script's text, for EVAL and EVALSHA. */
export const RATE_LIMIT_SCRIPT = RATE_LIMIT.script;
/** The same as a library of Redis Functions (Redis 7 and later), which makes its functions once. */
export const RATE_LIMIT_LIBRARY = RATE_LIMIT.library;
