import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** How long one question may take, at most: a service that accepts and never answers is asked again. */
const ASK_TIMEOUT_MS = 2_000;
/** The pause between two questions. */
const INTERVAL_MS = 25;

/**
 * Asks `url`/readyz until it answers 200, as an orchestrator would, and resolves then; rejects after
 * `timeoutMs` with the last answer (a status, or why there was none). Each question is on a fresh
 * connection (`Connection: close`): none kept alive from before a restart, and with node:cluster's
 * workers, consecutive questions reach each worker in turn. An `https:` URL is asked over TLS with
 * this process's trusted certificates.
 */
export async function waitForReady(url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string | undefined;
  for (;;) {
    const askFor = Math.max(1, Math.min(ASK_TIMEOUT_MS, deadline - Date.now()));
    const answer = await askReady(`${url}/readyz`, askFor);
    if (answer === 200) return;
    // A question the deadline cut short says nothing of the service: the answer before it stands.
    const cutShort = answer === TIMED_OUT && askFor < ASK_TIMEOUT_MS && last !== undefined;
    if (!cutShort) last = typeof answer === 'number' ? `status ${answer}` : answer === TIMED_OUT ? `no answer in ${askFor} ms` : answer;
    if (Date.now() >= deadline) throw new Error(`${url} did not become ready within ${timeoutMs} ms (/readyz: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
}

/** What `askReady` resolves to when the question timed out. */
const TIMED_OUT = Symbol('timed out');

/** The status of one GET, or why there was none. */
function askReady(url: string, timeoutMs: number): Promise<number | string | typeof TIMED_OUT> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, { agent: false, headers: { connection: 'close' }, timeout: timeoutMs }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', (error: Error) => resolve(error.message));
    });
    req.once('timeout', () => {
      resolve(TIMED_OUT);
      req.destroy();
    });
    req.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}
