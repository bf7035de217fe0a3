import assert from 'node:assert/strict';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startService, type ServiceProcess } from '@animal-store/testkit';
import { PROXY_TEST_PATHS, writeDocument } from '../support/index.js';
import { eventually, startProcess, type ServiceUnderTest } from './processes.js';

/** A GET on a connection that closes after it (no keep-alive pool); its status once the body is read. */
function closedRequest(url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
}

// Hostile suite: every socket costs the gateway a bounded time once it has answered or timed the
// client out, whatever the client does. Each case runs against a gateway process of its own, with
// the default timeouts, and watches that process's descriptors of client connections (its fds
// that are sockets on its own port, from /proc) come back to none, and its descriptors overall
// (/proc/<pid>/fd) back to their baseline. The cases run side by side: their waits overlap.

/** How many hostile connections each case opens. */
const CONNECTIONS = 300;
/**
 * Descriptors the gateway may hold above its baseline once the attackers' sockets are gone: the
 * upstream keep-alive pool grows with the attack's concurrency (up to UPSTREAM_MAX_SOCKETS) and
 * shrinks only after UPSTREAM_IDLE_TIMEOUT_MS (30 s), so the overall count is checked with room
 * for it; the client sockets are checked exactly.
 */
const UPSTREAM_POOL = 256 + 5;

interface Attack {
  /** What the clients do. */
  readonly name: string;
  readonly connections: number;
  /** Opens one connection and behaves as the attacker; resolves once it is in place. */
  open(port: number, sockets: Socket[]): Promise<void>;
  /** By when the gateway must have let go of every one (ms after they were in place). */
  readonly boundMs: number;
  /** Which setting bounds it, for the message. */
  readonly because: string;
  /** Settings other than the defaults (a shorter SEND_TIMEOUT_MS keeps the suite short). */
  readonly env?: Record<string, string>;
  /**
   * The gateway lets go of each connection soon after answering it, possibly before the last
   * ones are in place: it need not be seen holding all of them at once, only most.
   */
  readonly letsGoEarly?: boolean;
}

/** A connection whose client never closes its side (our FIN gets no FIN back) and, once `reading` says so, stops reading. */
function hostileSocket(port: number, sockets: Socket[], onConnect: (socket: Socket) => void): Socket {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => onConnect(socket));
  socket.on('error', () => {});
  sockets.push(socket);
  return socket;
}

const ATTACKS: Attack[] = [
  {
    name: 'connect and send nothing',
    connections: CONNECTIONS,
    open: (port, sockets) => new Promise((resolve) => void hostileSocket(port, sockets, (socket) => (socket.pause(), resolve()))),
    boundMs: 10_000 + 1_000 + 2_000 + 4_000,
    because: 'HEADERS_TIMEOUT_MS (10 s) + the 1 s check + the 2 s linger after the 408',
  },
  {
    name: 'slowloris: a header byte every 500 ms, never the end of the headers, never read',
    connections: CONNECTIONS,
    open: (port, sockets) =>
      new Promise((resolve) => {
        const socket = hostileSocket(port, sockets, () => {
          socket.write('GET /v1/echo HTTP/1.1\r\nHost: gw\r\nX-A: ');
          socket.pause();
          const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write('a')), 500);
          socket.once('close', () => clearInterval(drip));
          resolve();
        });
      }),
    boundMs: 10_000 + 1_000 + 2_000 + 4_000,
    because: 'HEADERS_TIMEOUT_MS (10 s) + the 1 s check + the 2 s linger after the 408',
  },
  {
    name: 'idle keep-alive after a 200, read but never closed',
    connections: CONNECTIONS,
    open: (port, sockets) =>
      new Promise((resolve) => {
        const socket = hostileSocket(port, sockets, () => socket.write('GET /v1/echo HTTP/1.1\r\nHost: gw\r\n\r\n'));
        socket.once('data', () => resolve());
      }),
    boundMs: 5_000 + 4_000,
    because: 'KEEP_ALIVE_TIMEOUT_MS (5 s)',
    letsGoEarly: true,
  },
  {
    name: 'Connection: close answered, never read, never closed (FIN-WAIT-2 on our side)',
    connections: CONNECTIONS,
    open: (port, sockets) =>
      new Promise((resolve) => {
        const socket = hostileSocket(port, sockets, () => {
          socket.pause();
          socket.write('GET /v1/echo HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n', () => resolve());
        });
      }),
    boundMs: 15_000,
    because: 'the answer fits the socket buffers: the gateway closes once it is written (1 s alone; the other cases share the CPU)',
    letsGoEarly: true,
  },
  {
    name: 'a 4 MiB answer never read, the connection kept open',
    connections: 50,
    open: (port, sockets) =>
      new Promise((resolve) => {
        const socket = hostileSocket(port, sockets, () => {
          socket.write('GET /v1/big HTTP/1.1\r\nHost: gw\r\n\r\n');
          socket.once('data', () => (socket.pause(), resolve()));
        });
      }),
    // 20 s, so that its first expiry (half of it) comes after the last of the 50 is in place, on
    // a busy CI machine too: with 10 s, one client cut at 5 s, before the others were all
    // connected, made the count 49 of 50 once.
    boundMs: 20_000 + 15_000,
    because: 'SEND_TIMEOUT_MS, 20 s here (30 s by default), after the last byte the client took',
    env: { SEND_TIMEOUT_MS: '20000' },
  },
  {
    name: '200 pipelined requests, no answer ever read',
    connections: 50,
    open: (port, sockets) =>
      new Promise((resolve) => {
        const socket = hostileSocket(port, sockets, () => {
          socket.pause();
          socket.write('GET /v1/echo HTTP/1.1\r\nHost: gw\r\n\r\n'.repeat(200), () => resolve());
        });
      }),
    boundMs: 10_000 + 15_000,
    because: "SEND_TIMEOUT_MS, 10 s here, or earlier Node's own timeouts for the requests queued behind the unread answers",
    env: { SEND_TIMEOUT_MS: '10000' },
  },
];

describe('hostile sockets: the gateway lets go of each within its bound', { concurrency: true }, () => {
  // The upstream runs in a process of its own: the attack clients here must not starve it.
  let upstream: ServiceProcess;
  let document: string;
  before(async () => {
    upstream = await startService({ entry: fileURLToPath(new URL('./upstream-main.ts', import.meta.url)), env: {} });
    document = writeDocument(PROXY_TEST_PATHS);
  });
  after(async () => {
    await upstream?.stop();
  });

  for (const attack of ATTACKS) {
    test(`${attack.connections} clients that ${attack.name}: descriptors back to the baseline within ${attack.boundMs / 1000} s (${attack.because})`, async () => {
      const gateway: ServiceUnderTest = await startProcess('gateway', {
        AUTH: 'off',
        RATE_LIMITS: 'off',
        UPSTREAM_URL: upstream.url,
        OPENAPI_FILE: document,
        ...attack.env,
      });
      const sockets: Socket[] = [];
      try {
        // One request first, so the upstream connection and the lazily made parts exist already;
        // on a connection of its own that closes after it (a pooled one that its client closes
        // while the attack is placed, after 4 s idle on a slow host, made the count 49 of 50).
        assert.equal(await closedRequest(`${gateway.url}/v1/echo`), 200);
        await eventually(
          () => gateway.clientSockets(),
          (count) => count === 0,
          5_000,
          (count) => `the gateway still holds ${count} client connections after the first request`,
        );
        const baseline = gateway.descriptors();
        const ours = 0;
        const placing = performance.now();
        await Promise.all(Array.from({ length: attack.connections }, () => attack.open(gateway.port, sockets)));
        const placedMs = performance.now() - placing;
        const held = gateway.clientSockets() - ours;
        const heldOverall = gateway.descriptors() - baseline;
        // The most client sockets seen at once, while waiting for them to go: the gateway may
        // accept the last ones a little after the clients are in place.
        let peak = held;
        const clientSockets = () => {
          const count = gateway.clientSockets();
          peak = Math.max(peak, count - ours);
          return count;
        };
        const tookMs = await eventually(
          clientSockets,
          (count) => count <= ours,
          attack.boundMs,
          (count) => `the gateway still holds ${count - ours} of the ${attack.connections} client connections ${attack.boundMs / 1000} s after the attack`,
        );
        const after = gateway.descriptors() - baseline;
        console.log(
          `# ${attack.name}: ${held} client sockets held once the attack was in place, after ${(placedMs / 1000).toFixed(1)} s (${peak} at most), none after ${(tookMs / 1000).toFixed(1)} s; descriptors overall: baseline ${baseline}, +${heldOverall} during, +${after} after (the upstream pool)`,
        );
        // The attack did reach the gateway: otherwise "back to none" would prove nothing. A gateway
        // that lets go early closes the first clients before the last are in place: in a CI run,
        // 141 of 300 answered Connection: close at once (placed in 0.2 s, all gone in 1.5 s), so a
        // quarter of them held at once is the proof asked of those.
        if (attack.letsGoEarly === true)
          assert.ok(peak >= attack.connections / 4, `the gateway held at most ${peak} of the ${attack.connections} client connections at once`);
        else assert.equal(peak, attack.connections, `the gateway held at most ${peak} of the ${attack.connections} client connections at once`);
        assert.ok(after <= UPSTREAM_POOL, `${after} descriptors more than the baseline`);
        // It still serves a real client, and the attackers' sockets are closed on its side.
        assert.equal((await fetch(`${gateway.url}/v1/echo`)).status, 200);
      } finally {
        for (const socket of sockets) socket.destroy();
        await gateway.stop();
      }
    });
  }
});
