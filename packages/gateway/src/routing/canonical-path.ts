/**
 * True when `path` is already in the one form an operation is matched in: absolute, no empty
 * segments (`//`), no dot segments, not even percent-encoded ones (`%2e%2e`), no encoded slash or
 * backslash, no backslash, no control characters. Anything else is refused (404) rather than
 * normalised, so the gateway and the upstream can never disagree about which resource a path names.
 */
export function isCanonicalPath(path: string): boolean {
  // Nearly every path holds none of the characters a non-canonical form needs: one scan says so.
  if (!NEEDS_A_CLOSER_LOOK.test(path)) return path.charCodeAt(0) === 0x2f && (path.length === 1 || path.charCodeAt(path.length - 1) !== 0x2f);
  if (!path.startsWith('/') || path.includes('\\') || /[\x00-\x20\x7f]/.test(path)) return false;
  if (/%(2f|5c|00)/i.test(path)) return false;
  const segments = path.split('/').slice(1);
  return segments.every((segment, index) => {
    if (segment === '') return index === segments.length - 1 && segments.length === 1; // only "/" itself
    // `..;x` and `.;x` are dot segments to servlet containers (path parameters after `;`).
    const decoded = segment.replace(/%2e/gi, '.').replace(/%3b/gi, ';').split(';')[0];
    return decoded !== '.' && decoded !== '..';
  });
}

/** What any non-canonical absolute path holds: `//`, a dot, `%`, `;`, a backslash, a control character or a space. */
const NEEDS_A_CLOSER_LOOK = /\/\/|[.%;\\\x00-\x20\x7f]/;
