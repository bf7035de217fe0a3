import { Agent, request } from 'undici';

/**
 * Sends `count` requests to `/v1/echo` at once, spread over `urls` with `token`, and counts the
 * statuses.
 *
 * Each request gets a connection of its own, never reused (`pipelining: 0`, closed after). A
 * connection kept alive by an earlier burst and reused here can be closed by the server for being
 * idle while the new request is on its way. The kernel then resets it, and the request is never
 * read. On a starved host (a CPU hog, a busy CI machine) that race is common: it showed as
 * `read ECONNRESET` in 1 run of 3 under a hog. It says nothing of the gateway, which never saw
 * those requests.
 */
export async function burst(urls: readonly string[], count: number, token: string): Promise<Record<number, number>> {
  const dispatcher = new Agent({ pipelining: 0 });
  try {
    const statuses = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const { statusCode, body } = await request(`${urls[i % urls.length]}/v1/echo`, { headers: { authorization: `Bearer ${token}` }, dispatcher });
        await body.dump();
        return statusCode;
      }),
    );
    const counts: Record<number, number> = {};
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  } finally {
    await dispatcher.close();
  }
}
