import { connect, type Socket } from 'node:net';

/**
 * Sends `head`, then body bytes as fast as the connection takes them, for at most `forMs`. Resolves
 * with what came back, how many body bytes went out, and how long until the gateway closed.
 */
export function endlessUpload(port: number, head: string, forMs = 6000): Promise<{ reply: string; sent: number; closedAfterMs: number | undefined }> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    const started = performance.now();
    let reply = '';
    let sent = 0;
    let closedAfterMs: number | undefined;
    let open = true;
    const pump = () => {
      while (open && performance.now() - started < forMs) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (open) finish();
    };
    const finish = () => {
      open = false;
      socket.destroy();
      resolve({ reply, sent, closedAfterMs });
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('data', (data) => (reply += data.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      closedAfterMs ??= performance.now() - started;
      if (open) finish();
    });
  });
}
