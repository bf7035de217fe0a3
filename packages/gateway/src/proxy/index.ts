import type { ProxyEngine } from './engines.js';
import { createHttpProxyUpstream } from './http-proxy-upstream.js';
import { createUndiciUpstream } from './undici-upstream.js';
import type { Upstream, UpstreamOptions } from './upstream.js';

export { PROXY_ENGINES, type ProxyEngine } from './engines.js';
export { upstreamPrefix } from './upstream-prefix.js';
export type { ForwardOutcome, ForwardRequest, Upstream, UpstreamOptions } from './upstream.js';

/** The engine `PROXY_ENGINE` names, behind the one interface the pipeline uses. */
export function createUpstream(engine: ProxyEngine, options: UpstreamOptions): Upstream {
  return engine === 'undici' ? createUndiciUpstream(options) : createHttpProxyUpstream(options);
}
