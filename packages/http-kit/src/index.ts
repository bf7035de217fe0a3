export {
  clientErrorKind,
  createClientErrorHandler,
  type ClientErrorAnswered,
  type ClientErrorHeaders,
  type ClientErrorKind,
  type ErrorBodyShape,
} from './client-error.js';
export { deepFreeze } from './deep-freeze.js';
export { drain, handOver } from './drain.js';
export { bufferedStdout, LOG_BLOCK_BYTES, LOG_FLUSH_MS } from './log-stream.js';
export { exitWithProblems, LISTEN_BACKLOG, listenFailure, serve, type ServeLogger, type ServeOptions } from './serve.js';
export { BodyAborted, BodyOverLimit, bodyUnread, collectBody, DEFAULT_LINGER, lingerAfterAnswer, type LingerLimits } from './early-answer.js';
export { DEFAULT_SEND_TIMEOUT_MS, limitSendTime } from './send-timeout.js';
export { nodeSupport, SUPPORTED_NODE } from './node-support.js';
export { parseEnv, problemLines, type Env, type EnvResult } from './parse-env.js';
export { settings, type Setting, type Settings, type SettingsShape, type SettingsTable, type SettingsValues } from './settings.js';
