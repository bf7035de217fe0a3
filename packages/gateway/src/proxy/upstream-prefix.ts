/**
 * The path in front of every operation as the upstream sees it: the path of UPSTREAM_URL, then
 * UPSTREAM_BASE_PATH (`/` for none), or the public base path when that is unset, as the forward
 * step sends it. `''` for the root. `publicBasePath` is the resolved one (`''` for the root).
 */
export function upstreamPrefix(target: URL, upstreamBasePath: string | undefined, publicBasePath: string): string {
  const urlPath = target.pathname.replace(/\/+$/, '');
  const base = upstreamBasePath === undefined ? publicBasePath : upstreamBasePath === '/' ? '' : upstreamBasePath;
  return urlPath + base;
}
