export { GATEWAY_ENV_NAMES } from './env-schema.js';
export { loadConfig, loadConfigFromEnv, type AuthConfig, type ConfigResult, type GatewayConfig, type KeysConfig } from './load-config.js';
