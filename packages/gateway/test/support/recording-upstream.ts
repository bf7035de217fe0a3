import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the recording upstream parsed, body included. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A started recording upstream: its URL, what it saw, and how to stop it. */
export interface RecordingUpstream {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Requests whose connection closed before an answer was sent. */
  readonly abandoned: string[];
  close(): Promise<void>;
}

type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/**
 * A deliberately simple upstream that records every request it parses. `/hold` never answers,
 * `/reset` destroys the socket, `/hop` answers with hop-by-hop headers, `/big` streams 4 MiB
 * (`BIG_BODY_BYTES`), `/stall` sends part of a body and goes silent, `/drip` sends a byte every
 * 50 ms for as long as the client listens; anything else echoes.
 */
export async function startRecordingUpstream(behaviours: Record<string, Behaviour> = {}): Promise<RecordingUpstream> {
  const requests: RecordedRequest[] = [];
  const abandoned: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.on('close', () => {
        if (!res.writableFinished) abandoned.push(req.url ?? '');
      });
      const path = (req.url ?? '').split('?')[0] as string;
      const behaviour = behaviours[path] ?? DEFAULT_BEHAVIOURS[path.replace(/^\/v1/, '')] ?? echo;
      behaviour(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    abandoned,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const echo: Behaviour = (req, res, body) => {
  const payload = JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
};

/** The size of `/big`'s answer: bytes `i % 251`, streamed chunked in 64 KiB writes. */
export const BIG_BODY_BYTES = 4 * 1024 * 1024;

const DEFAULT_BEHAVIOURS: Record<string, Behaviour> = {
  '/hold': () => {},
  '/big': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 0).map((_, i) => i % 251);
    let sent = 0;
    const more = () => {
      while (sent < BIG_BODY_BYTES) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  },
  '/drip': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('.'), 50);
    res.on('close', () => clearInterval(timer));
  },
  '/stall': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
    res.write('only part of the body');
  },
  '/reset': (req) => req.socket.destroy(),
  // Switching protocols on a request that asked for no upgrade, and keeping the connection.
  '/switch': (req) => req.socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n'),
  // Three digits Node's client accepts but no server may send.
  '/weird': (req) => req.socket.end('HTTP/1.1 099 Odd\r\ncontent-length: 0\r\n\r\n'),
  '/hop': (_req, res) => {
    res.writeHead(200, {
      connection: 'keep-alive, x-upstream-secret',
      'keep-alive': 'timeout=30',
      'x-upstream-secret': 'internal',
      'proxy-authenticate': 'Basic',
      'x-request-id': 'upstream-made-this',
      'set-cookie': ['a=1', 'b=2'],
      'content-type': 'application/json',
    });
    res.end('{}');
  },
};
