export { createRedisClient, type RedisClient, type RedisClientOptions } from './redis-client.js';
export { redisKeyNames } from './key-names.js';
