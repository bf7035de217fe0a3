import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ClientView } from './client-view.js';
import type { LinkRewriter } from './link-rewrite.js';

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy-only ones: never forwarded either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Headers the gateway answers itself or sets from its own view (`Host` is the upstream's, set by
 * the proxy engine; the client's travels as `X-Forwarded-Host`).
 */
const SET_BY_GATEWAY = new Set(['expect', 'forwarded', 'host', 'x-real-ip', 'x-request-id', 'content-length']);

/**
 * Headers some frameworks and proxies obey to change the path or method a backend sees, after
 * the gateway routed, authenticated and limited the request by its own: never forwarded.
 */
const REROUTING = new Set(['x-original-url', 'x-rewrite-url', 'x-http-method-override', 'x-http-method', 'x-method-override', 'x-original-method']);

const NONE: ReadonlySet<string> = new Set();

/** Names listed in `Connection` are hop-by-hop too. */
function connectionTokens(value: string | string[] | undefined): ReadonlySet<string> {
  // The common case names nothing but keep-alive, which is hop-by-hop already.
  if (value === undefined || value === 'keep-alive') return NONE;
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
}

/** True for a header name that must not cross the gateway in either direction. */
export function isHopByHop(name: string, connection: ReadonlySet<string>): boolean {
  return HOP_BY_HOP.has(name) || connection.has(name);
}

/**
 * The headers to send upstream: the client's, less hop-by-hop ones, less any identity the client
 * claims (`X-Api-*` is the gateway's to set: from the verified key, which itself stays here), less
 * `X-Forwarded-*` (rebuilt from the trusted view), less any name with an underscore or a dot (an
 * alias of a dashed name to some backends), less those that reroute a request (`X-Original-URL`,
 * `X-HTTP-Method-Override`…), with an exact `Content-Length` for the buffered body. The verified
 * `Authorization` goes on only with `forwardAuthorization`. `X-Api-Plan` is `enforcedPlan`, the plan
 * the limit decided under (the plans file may move an account off its key's plan), else the key's.
 */
export function upstreamHeaders(
  incoming: IncomingHttpHeaders,
  client: ClientView,
  requestId: string,
  bodyLength: number | undefined,
  identity: { readonly subject: string; readonly plan: string; readonly keyId: string } | undefined,
  forwardAuthorization = false,
  enforcedPlan?: string,
): OutgoingHttpHeaders {
  const connection = connectionTokens(incoming.connection);
  const headers: OutgoingHttpHeaders = {};
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || isHopByHop(name, connection) || SET_BY_GATEWAY.has(name) || REROUTING.has(name)) continue;
    // Underscores and dots: CGI, WSGI, Rack and PHP backends read `X_Api_Subject` as `X-Api-Subject`,
    // and some normalise `X-Api.Subject` the same way.
    if (name.includes('_') || name.includes('.') || name.startsWith('x-api-') || name.startsWith('x-forwarded-')) continue;
    // A verified API key has done its job here; the upstream gets the identity, not the credential,
    // unless the operator forwards it to a backend that checks it too (FORWARD_AUTHORIZATION).
    if (name === 'authorization' && identity !== undefined && !forwardAuthorization) continue;
    headers[name] = value;
  }
  headers['x-request-id'] = requestId;
  headers['x-forwarded-for'] = client.forwardedFor;
  headers['x-forwarded-proto'] = client.proto;
  if (client.host !== '') headers['x-forwarded-host'] = client.host;
  if (bodyLength !== undefined) headers['content-length'] = String(bodyLength);
  if (identity !== undefined) {
    headers['x-api-subject'] = identity.subject;
    headers['x-api-plan'] = enforcedPlan ?? identity.plan;
    headers['x-api-key-id'] = identity.keyId;
  }
  return headers;
}

/**
 * The answer's headers as a flat `[name, value, …]` list: the upstream's (`rawHeaders`, as the
 * parser gave them, repeats kept, e.g. `Set-Cookie`) less hop-by-hop ones, less any
 * `Access-Control-*` (which browsers may call the API is the gateway's to say, CORS_ORIGINS, so a
 * backend's own `Access-Control-Allow-Origin: *` cannot open what the operator kept closed), less
 * those the gateway sets, then the gateway's own (`gatewayHeaders`, lower-case names). With
 * `rewriteLinks`, the upstream's `Location` and `Link` name public paths (the gateway's own are so already).
 */
export function downstreamHeaders(
  rawHeaders: readonly (string | Buffer)[],
  gatewayHeaders: Readonly<Record<string, string>>,
  rewriteLinks?: LinkRewriter,
): string[] {
  const text: string[] = new Array(rawHeaders.length);
  let connection: ReadonlySet<string> = NONE;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = latin1(rawHeaders[i] as string | Buffer);
    const value = latin1(rawHeaders[i + 1] as string | Buffer);
    text[i] = name;
    text[i + 1] = value;
    if (name.length === 10 && name.toLowerCase() === 'connection') connection = union(connection, connectionTokens(value));
  }
  const kept: string[] = [];
  for (let i = 0; i < text.length; i += 2) {
    const name = (text[i] as string).toLowerCase();
    if (isHopByHop(name, connection) || Object.hasOwn(gatewayHeaders, name) || name.startsWith('access-control-')) continue;
    kept.push(text[i] as string, text[i + 1] as string);
  }
  if (rewriteLinks !== undefined) rewriteLinks(kept);
  for (const name in gatewayHeaders) kept.push(name, gatewayHeaders[name] as string);
  return kept;
}

const latin1 = (part: string | Buffer): string => (typeof part === 'string' ? part : part.toString('latin1'));

const union = (a: ReadonlySet<string>, b: ReadonlySet<string>): ReadonlySet<string> => (a.size === 0 ? b : new Set([...a, ...b]));
