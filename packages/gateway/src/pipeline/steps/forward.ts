import { publishUpstreamCall, publishUpstreamStart } from '../../events/index.js';
import { upstreamHeaders } from '../../http/upstream-headers.js';
import type { Upstream } from '../../proxy/index.js';
import { refuse, type Answer } from '../answer.js';
import { clientOf, type Exchange } from '../exchange.js';

export interface ForwardSettings {
  readonly target: URL;
  /** The backend's base path, when it differs from the public one (`/v1/pets` → `/pets`). */
  readonly basePath: string | undefined;
  readonly forwardAuthorization: boolean;
}

/**
 * The last step: the request goes upstream with the gateway's view of identity and client, and
 * the upstream's answer streams back with the exchange's headers. An upstream that cannot be
 * reached answers 502, one that does not answer in time 504. Always answers.
 */
export function createForwardStep(upstream: Upstream, settings: ForwardSettings) {
  const serverAddress = settings.target.hostname;
  const serverPort = Number(settings.target.port || (settings.target.protocol === 'https:' ? 443 : 80));
  return async function forward(x: Exchange): Promise<Answer> {
    const base = settings.basePath;
    const operation = x.operation;
    const path = base === undefined || operation === undefined ? x.url : rebase(x.url, operation.basePath, base);
    // The plan the limit decided under (its policy's name, remembered per key): the account's
    // plan in the plans file, which may not be its key's. Absent with RATE_LIMITS=off.
    const headers = upstreamHeaders(x.req.headers, clientOf(x), x.record.id, x.body?.length, x.identity, settings.forwardAuthorization, x.record.plan);
    if (publishUpstreamStart.active) publishUpstreamStart({ request: x.record, headers });
    const startedAt = performance.now();
    const outcome = await upstream.forward({ req: x.req, res: x.res, path, headers, body: x.body, responseHeaders: x.headers });
    const durationMs = performance.now() - startedAt;
    const request = x.record;
    request.upstreamMs = Math.round(durationMs * 100) / 100;
    if (outcome.kind === 'proxied') {
      publishUpstreamCall({ request, serverAddress, serverPort, startedAt, durationMs, status: outcome.status });
      return { kind: 'proxied', status: outcome.status };
    }
    if (outcome.kind === 'client_gone') {
      publishUpstreamCall({ request, serverAddress, serverPort, startedAt, durationMs, errorType: 'client_gone' });
      return CLIENT_GONE;
    }
    publishUpstreamCall({ request, serverAddress, serverPort, startedAt, durationMs, errorType: outcome.code, cause: outcome.cause });
    return refuse(outcome.code);
  };
}

const CLIENT_GONE: Answer = { kind: 'client_gone' };

/** `url` with the public base path `from` replaced by the backend's `to` (`/` for none). */
export function rebase(url: string, from: string, to: string): string {
  const rest = url.slice(from.length);
  return to === '/' ? rest : `${to}${rest}`;
}
