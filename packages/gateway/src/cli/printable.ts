// Control characters (C0, DEL, C1) and the bidirectional overrides that reorder what a terminal shows.
const UNPRINTABLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const UNPRINTABLE_BUT_NEWLINE = /(?!\n)[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

const escaped = (char: string) => `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, '0')}`;

/**
 * `text` as it may go to a terminal: every control character written as `\uXXXX`, so a key id or
 * a path from a file or an argument cannot move the cursor, retitle the window or hide what
 * follows. `lines` keeps line feeds (a whole message); a table cell escapes them too. The escape is
 * JSON's own, so JSON stays valid JSON through it.
 */
export function printable(text: string, options: { lines?: boolean } = {}): string {
  return text.replace(options.lines === true ? UNPRINTABLE_BUT_NEWLINE : UNPRINTABLE, escaped);
}
