import { connect } from 'node:net';

/** Writes `raw` bytes to 127.0.0.1:`port` and resolves with everything read until `done` says so or the socket ends. */
export function rawExchange(port: number, raw: string, done: (text: string) => boolean = () => false, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(text);
    }, timeoutMs);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (done(text)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('end', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', reject);
  });
}
