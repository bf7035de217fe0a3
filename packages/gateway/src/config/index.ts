export { GATEWAY_ENV_NAMES } from './env-schema.js';
export { loadConfig, type ConfigResult, type GatewayConfig } from './load-config.js';
