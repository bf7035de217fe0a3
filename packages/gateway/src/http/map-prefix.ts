/**
 * `path` with its leading `from` replaced by `to` (`''` for the root), or `undefined` when `path`
 * is not under `from`: `mapPrefix('/v1/pets?x=1', '/v1', '/api/pets')` is `/api/pets/pets?x=1`.
 * The prefix ends at a segment boundary, so `/v10` is not under `/v1`; `//host/…` is a reference
 * to another host, never a path, so it is under nothing (`/\host/…` too). A path that would come out naming another
 * host is `undefined` too: `/v1//evil.example/x`, `/v1/\evil.example/x` or `/v1/<TAB>/evil.example/x`
 * mapped to the root would be `//evil.example/x` to a browser (an open redirect in `Location`).
 */
export function mapPrefix(path: string, from: string, to: string): string | undefined {
  if (path.charCodeAt(0) !== SLASH || namesAnotherHost(path) || !path.startsWith(from)) return undefined;
  const rest = path.slice(from.length);
  if (rest !== '' && !BOUNDARY.includes(rest.charAt(0))) return undefined;
  const mapped = to + rest;
  // `/v1` → root: the root is `/`, and `?x=1` alone would be relative to the current path.
  const result = mapped.charCodeAt(0) === SLASH ? mapped : `/${mapped}`;
  return namesAnotherHost(result) ? undefined : result;
}

/**
 * True when a browser resolves `path` (it starts with `/`) to another host: the next character
 * that counts is a `/` or a `\` (which URL parsers take for `/`), tabs and newlines being dropped
 * wherever they are (WHATWG URL).
 */
function namesAnotherHost(path: string): boolean {
  for (let i = 1; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === TAB || c === LF || c === CR) continue;
    return c === SLASH || c === BACKSLASH;
  }
  return false;
}

const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const BOUNDARY = '/?#';
