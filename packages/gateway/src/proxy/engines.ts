/** The proxy engines `PROXY_ENGINE` chooses between; both pass the same proxy and smuggling tests. */
export const PROXY_ENGINES = ['undici', 'http-proxy'] as const;
export type ProxyEngine = (typeof PROXY_ENGINES)[number];
