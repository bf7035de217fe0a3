export { createRedisClient, type RedisClient, type RedisClientOptions } from './redis-client.js';
export { redisKeyNames } from './key-names.js';
export { createBatch, type BatchOptions } from './batch.js';
export { observeRedis } from './observed-client.js';
