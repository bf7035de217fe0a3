/**
 * Lua run by the Redis store. Every key a script touches arrives in KEYS, and all keys of one store
 * share the `{prefix}` hash tag, so the scripts also run on Redis Cluster.
 *
 * Numbers are formatted with `%d` before they reach `redis.call` or a string: Lua 5.1 would print an
 * id of 1e14 or more as "1e+14", which is not an id.
 */

/**
 * Creates a pet, or replays the pet an earlier request with the same idempotency key created.
 *
 * KEYS: 1 id sequence, 2 pet hash (id → Pet JSON), 3 all ids (zset), 4 ids of the pet's status
 *       (zset), 5 the idempotency record.
 * ARGV: 1 the NewPet as JSON (an object, so it starts with "{"), 2 "1" when the pet has a status,
 *       3 "1" when the request carries an idempotency key, 4 the body fingerprint, 5 record TTL (s).
 * Returns {"created", petJson} | {"replayed", petJson} | {"key_reused", ""}.
 */
export const CREATE_PET = `
if ARGV[3] == '1' then
  local prior = redis.call('GET', KEYS[5])
  if prior then
    local sep = string.find(prior, '|', 1, true)
    if string.sub(prior, 1, sep - 1) ~= ARGV[4] then
      return {'key_reused', ''}
    end
    return {'replayed', redis.call('HGET', KEYS[2], string.sub(prior, sep + 1))}
  end
end
local id = string.format('%d', redis.call('INCR', KEYS[1]))
local pet = '{"id":' .. id .. ',' .. string.sub(ARGV[1], 2)
redis.call('HSET', KEYS[2], id, pet)
redis.call('ZADD', KEYS[3], id, id)
if ARGV[2] == '1' then
  redis.call('ZADD', KEYS[4], id, id)
end
if ARGV[3] == '1' then
  redis.call('SET', KEYS[5], ARGV[4] .. '|' .. id, 'EX', ARGV[5])
end
return {'created', pet}
`;

/**
 * One page of pets in id order, read atomically (ids and bodies from the same instant).
 *
 * KEYS: 1 the id zset to page through (all, or one status), 2 pet hash.
 * ARGV: 1 return pets with an id greater than this, 2 how many at most.
 * Returns the Pet JSON strings.
 */
export const LIST_PETS = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'LIMIT', 0, ARGV[2])
if #ids == 0 then
  return {}
end
return redis.call('HMGET', KEYS[2], unpack(ids))
`;
