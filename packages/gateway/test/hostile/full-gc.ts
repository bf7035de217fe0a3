import { createServer } from 'node:net';
import { freePort } from '@animal-store/testkit';

/**
 * A full garbage collection in a running Node.js process, asked through its inspector: the process
 * was started with `--inspect-port=<port>` (node:cluster gives its n-th worker `<port> + n`), and
 * SIGUSR1 opens the inspector there. A reading of RSS right after one counts what the process
 * holds, not the garbage V8 lets build up before its next full collection: V8 lets the old
 * generation grow by about the young generation's size first (64 MB on this machine by default),
 * which would hide a table that grows without bound, or fail a test that holds none.
 */
export async function collectGarbage(pid: number, port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const socketUrl = await inspectorUrl(pid, port, deadline);
  const socket = new WebSocket(socketUrl);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`pid ${pid}: no full collection within ${timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
      socket.addEventListener('error', () => reject(new Error(`pid ${pid}: the inspector's socket failed`)));
      socket.addEventListener('open', () => socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })));
      socket.addEventListener('message', (event) => {
        const reply = JSON.parse(String(event.data)) as { id?: number; error?: { message: string } };
        if (reply.id !== 1) return;
        clearTimeout(timer);
        if (reply.error === undefined) resolve();
        else reject(new Error(`pid ${pid}: ${reply.error.message}`));
      });
    });
  } finally {
    socket.close();
  }
}

/** Opens the inspector of `pid` (SIGUSR1) unless it is open, and resolves with its target's WebSocket address. */
async function inspectorUrl(pid: number, port: number, deadline: number): Promise<string> {
  let signalled = false;
  for (;;) {
    try {
      const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
      const found = targets[0]?.webSocketDebuggerUrl;
      if (found !== undefined) return found;
    } catch {
      // Not listening yet.
    }
    if (!signalled) {
      process.kill(pid, 'SIGUSR1');
      signalled = true;
    }
    if (Date.now() > deadline) throw new Error(`pid ${pid}: no inspector on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A free loopback port whose next one is free too: a gateway's primary's inspector port, and its one worker's. */
export async function freePortPair(): Promise<number> {
  for (let tries = 0; tries < 20; tries++) {
    const port = await freePort();
    if (await canListen(port + 1)) return port;
  }
  throw new Error('no two free ports in a row');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
