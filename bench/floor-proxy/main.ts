// The floor: what any Node proxy built like the gateway pays before doing anything of its own.
// node:http in, one undici Pool out (the gateway's default engine), the request's path and method
// sent on, the answer's headers and body streamed back; no routing, no header hygiene, no log, no
// timeouts. Not a usable proxy: a yardstick for the gateway's own share of its CPU per request.
// `node --import tsx bench/floor-proxy/main.ts`, with PORT, HOST and UPSTREAM_URL.
import { createServer } from 'node:http';
import { Pool, type Dispatcher } from 'undici';

const pool = new Pool(process.env.UPSTREAM_URL as string, { connections: 256, pipelining: 1 });

createServer((req, res) => {
  if (req.url === '/healthz') return void res.end('ok');
  pool.dispatch(
    { path: req.url as string, method: req.method as Dispatcher.HttpMethod, headers: { 'x-forwarded-for': req.socket.remoteAddress ?? '' }, body: null },
    {
      onRequestStart() {},
      onResponseStart(_controller, status, headers) {
        const { connection: _connection, 'keep-alive': _keepAlive, ...rest } = headers;
        res.writeHead(status, rest as Record<string, string>);
      },
      onResponseData: (_controller, chunk) => void res.write(chunk),
      onResponseEnd: () => void res.end(),
      onResponseError: () => void (res.headersSent ? res.destroy() : res.writeHead(502).end()),
    },
  );
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');

// SIGTERM ends it at once: nothing here to drain.
process.once('SIGTERM', () => process.exit(0));
