import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';

/** A token shorter than this is refused: it would be guessed long before the anonymous limit noticed. */
export const MIN_TOKEN_LENGTH = 32;
const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const TOKEN = /^[\x21-\x7e]+$/;

/** The admin tokens of `ADMIN_TOKEN_FILE`: who sends a request, by the name of its token. */
export interface AdminTokens {
  /** The tokens' names, in the file's order. */
  readonly names: readonly string[];
  /** The name of the token `Authorization: Bearer <token>` carries, or `undefined`. */
  nameOf(authorization: string | undefined): string | undefined;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Reads `ADMIN_TOKEN_FILE`: one token a line, `name:token`, where the name is what the audit log
 * says of its holder (`ops-alice:8f1c…`); a line without a colon is a token named after the file
 * (`admin-token` for `/run/secrets/admin-token`), so `openssl rand -hex 32 > admin-token` makes a
 * file. Blank lines and lines starting with `#` are skipped. A token is at least 32 visible ASCII
 * characters; names and tokens are each unique. Throws with every problem, naming the setting,
 * when the file is missing, unreadable, empty or wrong: the gateway does not start without it.
 *
 * A check compares the SHA-256 of what was sent with each token's, with `timingSafeEqual`: equal
 * lengths whatever was sent, and every token compared, so the time says nothing of either.
 */
export function readAdminTokens(file: string): AdminTokens {
  const where = `ADMIN_TOKEN_FILE ${file}`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${where} cannot be read: ${(error as Error).message}`);
  }
  const problems: string[] = [];
  const tokens: { readonly name: string; readonly digest: Buffer }[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const at = `line ${index + 1}`;
    const colon = line.indexOf(':');
    const name = colon === -1 ? basename(file, extname(file)) : line.slice(0, colon).trim();
    const token = colon === -1 ? line : line.slice(colon + 1).trim();
    if (!NAME.test(name)) problems.push(`${at}: the name "${name.slice(0, 64)}" is not 1 to 64 of A-Z a-z 0-9 . _ -`);
    else if (seen.has(`name:${name}`)) problems.push(`${at}: the name ${name} is given twice`);
    // The token itself never goes into a message: it would end up in a log.
    if (!TOKEN.test(token)) problems.push(`${at}: the token holds a space or a character that is not visible ASCII`);
    else if (token.length < MIN_TOKEN_LENGTH)
      problems.push(`${at}: the token is ${token.length} characters, fewer than ${MIN_TOKEN_LENGTH} (openssl rand -hex 32 makes one)`);
    else if (seen.has(`token:${token}`)) problems.push(`${at}: the token of ${name} is another name's too`);
    seen.add(`name:${name}`).add(`token:${token}`);
    tokens.push({ name, digest: digest(token) });
  });
  if (problems.length === 0 && tokens.length === 0) problems.push('holds no token (one a line, name:token)');
  if (problems.length > 0) throw new Error(`${where}: ${problems.join('; ')}`);
  return {
    names: tokens.map((token) => token.name),
    nameOf(authorization) {
      const sent = /^Bearer +(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
      if (sent === undefined) return undefined;
      const sentDigest = digest(sent);
      let found: string | undefined;
      for (const token of tokens) if (timingSafeEqual(sentDigest, token.digest) && found === undefined) found = token.name;
      return found;
    },
  };
}
