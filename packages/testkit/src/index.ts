export { chromiumSkipReason, renderedDom, screenshot } from './chromium.js';
export { TEST_ENV } from './config.js';
export { freePort } from './free-port.js';
export { startRedisCluster, type RedisCluster } from './redis-cluster.js';
export { redisSkipReason, startRedis, type RedisServer, type StartRedisOptions } from './redis-server.js';
export { temporaryDir } from './temporary-dir.js';
export { commandSkipReason, selfSignedCertificate } from './tools.js';
export { startService, type ServiceProcess, type StartServiceOptions } from './service-process.js';
export { endlessUpload } from './endless-upload.js';
