import type { IncomingMessage } from 'node:http';
import { isHeaderSafe } from '../auth/index.js';

/** A request to the admin API once its token passed: who sent it, and what it asks. */
export interface AdminRequest {
  readonly req: IncomingMessage;
  readonly method: string;
  /** The path's segments after `/admin`, percent-decoded (`['accounts', 'acme']`). */
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  /** The name of the admin token it came with (the audit log's who). */
  readonly who: string;
  /** The client's address, through the proxies `TRUST_PROXY` trusts. */
  readonly ip: string;
}

/** A parameter that is not valid: answered `400 invalid_parameter` with its message. */
export class InvalidParameter extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidParameter';
  }
}

/**
 * The segments of an admin path (`/admin/accounts/acme%2Fx` → `['accounts', 'acme/x']`), each
 * percent-decoded; `undefined` outside `/admin/`. A malformed escape is an `InvalidParameter`.
 */
export function adminSegments(path: string): string[] | undefined {
  if (!path.startsWith('/admin/')) return undefined;
  return path
    .slice('/admin/'.length)
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        throw new InvalidParameter(`the path segment "${segment.slice(0, 64)}" is not valid percent-encoding`);
      }
    });
}

/** Account names as keys carry them (`sub`): visible ASCII and inner spaces, up to 256 characters. */
export function accountName(text: string): string {
  if (text.length === 0 || text.length > 256 || !isHeaderSafe(text)) {
    throw new InvalidParameter('an account is 1 to 256 visible ASCII characters (inner spaces allowed), as a key\'s "sub"');
  }
  return text;
}

/** Key ids as keys carry them (`jti`): visible ASCII and inner spaces, up to 128 characters. */
export function keyId(text: string): string {
  if (text.length === 0 || text.length > 128 || !isHeaderSafe(text)) {
    throw new InvalidParameter('a key id is 1 to 128 visible ASCII characters (inner spaces allowed), as a key\'s "jti"');
  }
  return text;
}

/** Largest page of accounts: a page is a peek per account and key, and its JSON grows with it. */
export const MAX_PAGE = 1000;
export const DEFAULT_PAGE = 100;

/**
 * The query of a listing: `limit` (1 to `MAX_PAGE`), `cursor`, `q`; any other name is an error
 * (a typo must not silently list something else).
 */
export function pageQuery(query: URLSearchParams): { readonly limit: number; readonly cursor: string | undefined; readonly search: string | undefined } {
  onlyParameters(query, ['limit', 'cursor', 'q']);
  const limitText = query.get('limit');
  const limit = limitText === null ? DEFAULT_PAGE : /^\d{1,7}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_PAGE)) throw new InvalidParameter(`limit must be a whole number from 1 to ${MAX_PAGE}`);
  const cursor = query.get('cursor') ?? undefined;
  if (cursor !== undefined && (cursor.length === 0 || cursor.length > 4096)) throw new InvalidParameter('cursor is not one this gateway gave');
  const search = query.get('q') ?? undefined;
  if (search !== undefined && (search.length === 0 || search.length > 256)) throw new InvalidParameter('q is 1 to 256 characters');
  return { limit, cursor, search };
}

/** Refuses the request when its query names a parameter other than `allowed`, or one twice. */
/**
 * The id of the path's segment `index` (an account, a key), with no other parameter. An empty
 * segment takes it from the query parameter `name` instead (`accounts/?account=..`): `.` and `..`
 * cannot travel as a path segment, since a URL resolves them (escaped as `%2E` too).
 */
export function pathId(request: AdminRequest, index: number, name: string): string {
  const segment = request.segments[index] as string;
  onlyParameters(request.query, segment === '' ? [name] : []);
  if (segment !== '') return segment;
  const value = request.query.get(name);
  if (value === null) throw new InvalidParameter(`the ${name} is missing: give it in the path, or (for "." and "..") as ?${name}=`);
  return value;
}

export function onlyParameters(query: URLSearchParams, allowed: readonly string[]): void {
  const names = [...query.keys()];
  const unknown = names.find((name) => !allowed.includes(name));
  if (unknown !== undefined) {
    throw new InvalidParameter(
      `unknown parameter "${unknown.slice(0, 64)}"${allowed.length === 0 ? ': this endpoint takes none' : ` (${allowed.join(', ')})`}`,
    );
  }
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new InvalidParameter(`the parameter "${twice}" is given twice`);
}
