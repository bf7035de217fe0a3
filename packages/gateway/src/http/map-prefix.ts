/**
 * `path` with its leading `from` replaced by `to` (`''` for the root), or `undefined` when `path`
 * is not under `from`: `mapPrefix('/v1/pets?x=1', '/v1', '/api/pets')` is `/api/pets/pets?x=1`.
 * The prefix ends at a segment boundary, so `/v10` is not under `/v1`; `//host/…` is a reference
 * to another host, never a path, so it is under nothing.
 */
export function mapPrefix(path: string, from: string, to: string): string | undefined {
  if (path.charCodeAt(0) !== SLASH || path.charCodeAt(1) === SLASH || !path.startsWith(from)) return undefined;
  const rest = path.slice(from.length);
  if (rest !== '' && !BOUNDARY.includes(rest.charAt(0))) return undefined;
  const mapped = to + rest;
  // `/v1` → root: the root is `/`, and `?x=1` alone would be relative to the current path.
  return mapped.charCodeAt(0) === SLASH ? mapped : `/${mapped}`;
}

const SLASH = 0x2f;
const BOUNDARY = '/?#';
