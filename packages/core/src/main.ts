import { bufferedStdout, exitWithProblems, nodeSupport, serve } from '@animal-store/http-kit';
import { pino } from 'pino';
import { loadConfigFromEnv } from './config.js';
import { createCoreServer } from './server.js';
import { createStore } from './store/index.js';

// Wiring only: config, parts, listen, signals. The behaviour lives in the parts.
const result = loadConfigFromEnv();
if (!result.ok) exitWithProblems('core', result.problems);
const { config } = result;
const logger = pino({ name: 'core', level: config.logLevel }, bufferedStdout());
const node = nodeSupport(process.version);
if (!node.supported) logger.warn({ nodeVersion: process.version }, node.message);
const store = createStore(config);
const server = createCoreServer(config, { store, logger });

serve(server, {
  name: 'core',
  host: config.host,
  port: config.port,
  logger,
  shutdownTimeoutMs: config.shutdownTimeoutMs,
  details: { store: config.store.kind },
  onDrained: () => store.close(),
});
