export { burst, type BurstCounts, type BurstOptions } from './burst.js';
export { chromiumSkipReason, renderedDom, screenshot } from './chromium.js';
export { openPage, type BrowserPage } from './chromium-page.js';
export { TEST_ENV } from './config.js';
export { freePort } from './free-port.js';
export { startRedisCluster, type RedisCluster } from './redis-cluster.js';
export { redisSkipReason, startRedis, type RedisServer, type StartRedisOptions } from './redis-server.js';
export { temporaryDir } from './temporary-dir.js';
export { waitForReady } from './wait-for-ready.js';
export { commandSkipReason, selfSignedCertificate } from './tools.js';
export { startService, type ServiceProcess, type StartServiceOptions } from './service-process.js';
export { endlessUpload } from './endless-upload.js';
export { startCpuHog, type CpuHog, type CpuHogOptions } from './cpu-hog.js';
export {
  BUILT_ENV,
  buildOnce,
  REPOSITORY_ROOT,
  runServiceToExit,
  serviceCommand,
  type ServiceCommand,
  type ServiceKind,
  type ServiceRun,
} from './service-command.js';
