import { pino, type DestinationStream } from 'pino';

/**
 * Lines are written in blocks of about this many bytes, or at the next flush; a write never holds
 * more, nor part of a line. 4,096 bytes is what Linux writes to a pipe at once (PIPE_BUF): the
 * gateway's workers share one standard output, and their lines must not interleave within a line.
 */
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
  // sonic-boom writes once more than `minLength` waits, and keeps each write to whole lines of at
  // most `maxWrite` bytes (a single longer line is written alone); it wants the first below the second.
  const stream = pino.destination({ dest: 1, sync: true, minLength: LOG_BLOCK_BYTES - 1, maxWrite: LOG_BLOCK_BYTES, periodicFlush: LOG_FLUSH_MS });
  // pino flushes at exit only the asynchronous destinations; this one writes synchronously, so it
  // can here, where nothing asynchronous runs any more.
  process.on('exit', () => stream.flushSync());
  return stream;
}
