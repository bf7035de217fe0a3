import { pino, type DestinationStream } from 'pino';

/** Lines are written once this many bytes wait, or at the next flush. */
export const LOG_BLOCK_BYTES = 4096;
/** The longest a line waits to be written, in ms. */
export const LOG_FLUSH_MS = 100;

/**
 * Standard output for a service's pino logger, written in blocks: one `write` for about 4 KB of
 * lines (about 15 access-log lines) instead of one per line, and at least every 100 ms, so no line
 * waits longer. What is left is written when the process exits, however it exits short of being
 * killed (`process.exit`, an uncaught exception, the end of the event loop). A proxy's access log
 * is buffered so by nginx (`access_log … buffer= flush=`) and Envoy (`--file-flush-interval-msec`):
 * a `write` per line was most of what a line cost the gateway.
 */
export function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: true, minLength: LOG_BLOCK_BYTES, periodicFlush: LOG_FLUSH_MS });
  // pino flushes at exit only the asynchronous destinations; this one writes synchronously, so it
  // can here, where nothing asynchronous runs any more.
  process.on('exit', () => stream.flushSync());
  return stream;
}
