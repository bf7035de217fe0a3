export { createHttpProxyUpstream, type HttpProxyUpstreamOptions } from './http-proxy-upstream.js';
export type { ForwardOutcome, ForwardRequest, Upstream } from './upstream.js';
