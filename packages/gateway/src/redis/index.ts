export { createRedisClient, type RedisClientOptions } from './redis-client.js';
export type { RedisClient } from './redis-client-api.js';
export { redisFailure } from './redis-failure.js';
export { redisKeyNames } from './key-names.js';
export { createBatch, type BatchOptions } from './batch.js';
export { observeRedis } from './observed-client.js';
export { ScriptError } from './script-error.js';
export { luaCode, type LuaCode, type LuaLibrary } from './lua-library.js';
