import type { Operation } from '../routing/index.js';

/** The path the gateway serves its migration notes at (the default `rel="deprecation"` target). */
export const DEPRECATION_NOTES_PATH = '/docs/deprecations';

/**
 * Markdown migration notes for every deprecated operation, written from the route table so they
 * always say what the gateway enforces.
 */
export function deprecationNotes(operations: readonly Operation[]): string {
  const lines = ['# Deprecated operations', ''];
  const deprecated = operations.filter((op) => op.deprecation !== undefined);
  if (deprecated.length === 0) lines.push('None.');
  for (const op of deprecated) {
    const d = op.deprecation;
    lines.push(`## ${op.method} ${op.template} (\`${op.operationId}\`)`, '');
    if (d?.deprecatedAt !== undefined) lines.push(`- Deprecated since: ${d.deprecatedAt.toISOString()}`);
    if (d?.sunset !== undefined) lines.push(`- Removed at: ${d.sunset.toISOString()} (answers 410 \`gone\` from then on)`);
    if (d?.successor !== undefined) lines.push(`- Use instead: \`GET ${d.successor}\``);
    if (d?.note !== undefined) lines.push('', d.note);
    lines.push('');
  }
  return lines.join('\n');
}
