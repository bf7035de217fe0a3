import { connect } from 'node:net';

/** A burst's answers by status; 0 counts the requests that got no answer at all. */
export type BurstCounts = Record<number, number>;

export interface BurstOptions {
  /** Path and query of every request (default `/v1/echo`, the core's echo behind a gateway). */
  readonly path?: string;
  /** Further request headers (the token's `authorization` is set already). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A connection silent this long is closed and its request counts as no answer (default 300 s, as undici's). */
  readonly timeoutMs?: number;
  /** Called once after the burst when some requests got no answer, with how many for each reason. */
  readonly onNoAnswer?: (reasons: Record<string, number>) => void;
}

/**
 * Sends `count` GET requests at once with `token`, spread over `urls` in turn (a request's URL is
 * `urls[i % urls.length]` and the path), and counts the answers by status.
 *
 * Each request is on a fresh connection of its own (`Connection: close`), never one kept alive
 * from an earlier request: the server may close an idle kept connection just as it is reused, the
 * kernel resets it and the request is never read (`ECONNRESET`, common on a starved host), which
 * says nothing of the server. Fresh connections also reach node:cluster's workers in turn. The
 * requests are written and read with `node:net`: an HTTP client library costs several times the
 * CPU per request, and under a CPU hog the test's own process competes with the servers for the
 * same cores. An answer's status is its first line's.
 */
export async function burst(urls: readonly string[], count: number, token: string, options: BurstOptions = {}): Promise<BurstCounts> {
  if (urls.length === 0) throw new Error('burst: no URL to send to');
  const heads = urls.map((url) => requestHead(url, options.path ?? '/v1/echo', { ...options.headers, authorization: `Bearer ${token}` }));
  const reasons: Record<string, number> = {};
  const statuses = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const answer = await exchange(heads[i % heads.length] as RequestHead, options.timeoutMs ?? 300_000);
      if (typeof answer === 'string') reasons[answer] = (reasons[answer] ?? 0) + 1;
      return typeof answer === 'string' ? 0 : answer;
    }),
  );
  if (Object.keys(reasons).length > 0) options.onNoAnswer?.(reasons);
  const counts: BurstCounts = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

interface RequestHead {
  readonly host: string;
  readonly port: number;
  readonly bytes: Buffer;
}

function requestHead(url: string, path: string, headers: Record<string, string>): RequestHead {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:') throw new Error(`burst: only http: URLs, not ${url}`);
  const port = Number(parsed.port || 80);
  // URL keeps the brackets of an IPv6 host, which connect() does not take.
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const lines = [`GET ${path} HTTP/1.1`, `host: ${parsed.host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), 'connection: close'];
  return { host, port, bytes: Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1') };
}

/** One request on a connection of its own: the answer's status, or why there was none. */
function exchange(head: RequestHead, timeoutMs: number): Promise<number | string> {
  return new Promise((resolve) => {
    let start = '';
    let failure = 'closed without an answer';
    const socket = connect(head.port, head.host, () => socket.write(head.bytes));
    socket.setTimeout(timeoutMs, () => {
      failure = `no answer in ${timeoutMs} ms`;
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => {
      if (start.length < 16) start += chunk.toString('latin1', 0, 16);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message));
    socket.on('close', () => {
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(start)?.[1];
      resolve(status === undefined ? failure : Number(status));
    });
  });
}
