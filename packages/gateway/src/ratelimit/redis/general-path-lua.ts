/**
 * The part of the rate-limit script (`redis-script.ts`) that decides any request: the general
 * path, with tables, for every request the common path (`common-path-lua.ts`) does not take: a
 * layer, a peek, shadow, a lease asked for or given back, a ban or strike on the account, a refusal.
 * Its fields are as the call's loop reads them (its packed requests, `redis-call.ts`). It expects the
 * script's locals and the other parts' functions, and defines `leaseUnits`, `leaseEnds`,
 * `peekUnaccounted` (what the request being decided was granted, or for a peek the month's units
 * not accounted for) and `decide(index, at, key, policy, strikes, mode, cost, shadow, extra, want,
 * back, backAt)`, which appends its answer to `out`.
 */
export const GENERAL_PATH_LUA = `
-- The lease granted to the request being decided: its units and when it ends; for a peek, the
-- month's units not accounted for.
local leaseUnits, leaseEnds, peekUnaccounted = 0, 0, 0

-- One request on the general path, its fields as the call's loop read them (redis-call.ts); at:
-- where its bytes start in the call's packed requests, from which its key id and further layers
-- are read here (the common path needs neither).
local function decide(index, at, key, policy, strikes, mode, cost, shadow, extra, want, back, backAt)
  -- Its layers follow the full form's strikes, mode, shadow and their count (14 bytes).
  local _, _, _, _, keyId, r = sunpack(WITH_ID, packedRequests, at)
  r = r + 14
  local layers = { { key, policies[policy] } }
  for l = 1, extra do
    local layerKey, layerPolicy = sunpack(LAYER, packedRequests, r + 8 * (l - 1))
    layers[l + 1] = { layerKey, policies[layerPolicy] }
  end
  local n = 0
  for l = 1, #layers do n = n + layers[l][2].n end
  if revoked[index] then return padded(3, n) end
  if layers[1][1] == 0 then return padded(1, n) end

  local all, account = {}, nil
  for l = 1, #layers do
    local key, policy = KEYS[layers[l][1]], layers[l][2]
    local state = load(key, policy)
    layers[l].key, layers[l].state = key, state
    if l == 1 then account = state end
    for k = 1, policy.n do
      local win = policy.wins[k]
      local w = state.w[win[1]]
      if w == nil then
        w = { 0, 0, 0, {} }
        state.w[win[1]] = w
      end
      all[#all + 1] = { win = win, w = w, cur = bring(win, w), own = l == 1 }
    end
  end
  local changed = #account.leases > 0 and forget(account)
  if backAt > 0 and takeBack(all, account, back, backAt) then changed = true end
  if changed then keep(layers[1].key, account, layers[1][2]) end
  if mode == 2 then return padded(1, n) end
  if mode == 1 then
    for k = 1, #all do
      if all[k].own and all[k].win[6] then peekUnaccounted = unaccounted(account, all[k].w[2]) end
    end
  end

  local policy, ban = layers[1][2], nil
  local banned = false
  if keyId ~= '' then
    ban = account.bans[keyId]
    banned = ban ~= nil and ban[1] > now
    if banned and not shadow then return answer(all, 2, ban[1], 0) end
  end

  local own, others = refusal(all, cost, true), refusal(all, 1, false)
  local enforced = others
  if not shadow then enforced = combined(own, others) end
  if enforced ~= nil then
    -- The limit would admit it but for units leased and not given back: no strike, and the gateway
    -- asks for them and decides it again.
    if others == nil and mode == 0 and heldRefusal(all, account, cost) then return answer(all, 5, now, own[2]) end
    if mode == 1 or own == nil or shadow or keyId == '' or policy.strikes == 0 then
      return answer(all, 0, enforced[1], enforced[2])
    end
    if ban == nil then
      ban = { 0, 0, 0 }
      account.bans[keyId] = ban
    end
    if ban[3] <= now then ban[2], ban[3] = 0, now + policy.strikeMs end
    ban[2] = ban[2] + 1 + strikes
    keep(layers[1].key, account, policy)
    if ban[2] >= policy.strikes then
      ban[1], ban[2], ban[3] = now + policy.banMs, 0, 0
      return answer(all, 2, ban[1], 0)
    end
    return answer(all, 0, enforced[1], enforced[2])
  end

  -- Admitted. In shadow, where the plan would have refused: its windows are not charged.
  local inShadow = shadow and (banned or own ~= nil)
  local outcome, binding = 1, 0
  if inShadow then
    outcome = 4
    if own ~= nil then binding = own[2] end
  end
  -- A peek stops here: what the request would get, and nothing charged, counted or kept.
  if mode == 1 then return answer(all, outcome, 0, binding) end
  for k = 1, #all do
    local e = all[k]
    if not e.own then
      charge(e.win, e.w, e.cur, 1)
    elseif not inShadow then
      charge(e.win, e.w, e.cur, cost)
    end
  end
  for l = 1, #layers do
    if not (inShadow and l == 1) then keep(layers[l].key, layers[l].state, layers[l][2]) end
  end
  if want > 0 and not shadow and #layers == 1 then leaseUnits, leaseEnds = grant(all, account, want) end
  return answer(all, outcome, 0, binding)
end
`;
