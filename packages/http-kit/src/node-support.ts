/** The Node.js versions the project runs on, as every package.json's `engines` says (`^22.11 || >=24`). */
export const SUPPORTED_NODE = '22.11 or newer on the 22 line, or 24 and newer';

/**
 * Whether Node.js `version` (`v20.19.5` or `20.19.5`, as `process.version` says) is one the project
 * supports; if not, one sentence saying which runs, which are supported, and why. Services warn
 * with it and go on (a version that is merely untested may work); they do not refuse to start.
 */
export function nodeSupport(version: string): { supported: true } | { supported: false; message: string } {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  const [major, minor] = match === null ? [NaN, NaN] : [Number(match[1]), Number(match[2])];
  if ((major === 22 && minor >= 11) || major >= 24) return { supported: true };
  const why =
    match === null
      ? 'its version cannot be read'
      : major <= 20
        ? `Node.js ${major} has reached its end of life (no security fixes) and is not tested here`
        : major === 22
          ? '22 became a long-term support line with 22.11, and the earlier 22 releases are not tested here'
          : `Node.js ${major} is not a long-term support line and is not tested here`;
  return { supported: false, message: `Node.js ${version} is not supported: run ${SUPPORTED_NODE}; ${why}` };
}
