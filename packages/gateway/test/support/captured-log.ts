import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** A pino logger at `level` whose lines are kept in memory: `text()` is everything written so far. */
export function capturedLog(level = 'info'): { readonly logger: Logger; text(): string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { logger: pino({ level }, sink), text: () => text };
}
