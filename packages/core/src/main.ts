import { pino } from 'pino';
import { loadConfig } from './config.js';
import { drain } from '@animal-store/http-kit';
import { createCoreServer } from './server.js';
import { createStore } from './store/index.js';

// Wiring only: config, parts, listen, signals. The behaviour lives in the parts.
const result = loadConfig(process.env);
if (!result.ok) {
  process.stderr.write(`core: invalid configuration\n${result.problems.map((p) => `  - ${p}\n`).join('')}`);
  process.exit(2);
}
const { config } = result;
const logger = pino({ name: 'core', level: config.logLevel });
const store = createStore(config);
const server = createCoreServer(config, { store, logger });

server.on('error', (error) => {
  // Listening failed (port taken, address not available): say so plainly and stop.
  logger.fatal({ err: error }, `core cannot listen on ${config.host}:${config.port}`);
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  logger.info({ url: `http://${config.host}:${port}`, store: config.store.kind }, 'core listening');
});

let stopping = false;
function shutdown(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'core draining');
  void drain(server, config.shutdownTimeoutMs)
    .then(() => store.close())
    .then(() => {
      logger.info('core stopped');
      process.exit(0);
    });
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
