/** The content codings the docs are served in besides identity, best first when weights tie. */
export const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

/**
 * The coding to answer with, from an `Accept-Encoding` header (RFC 9110 §12.5.3): the acceptable
 * one (weight above 0, by name or by `*`) of highest weight, `br` on a tie; `undefined` for
 * identity. `x-gzip` is `gzip`. An element whose weight cannot be read is left out. Identity is
 * always available: when the client refuses it too (`identity;q=0`) and accepts nothing offered,
 * the answer is identity anyway, as the RFC lets a server disregard the header.
 */
export function preferredCoding(header: string | undefined): Coding | undefined {
  if (header === undefined || header === '') return undefined;
  const weights = new Map<string, number>();
  for (const element of header.split(',')) {
    const [name = '', ...params] = element.split(';');
    const coding = name.trim().toLowerCase();
    const weight = weightOf(params);
    if (coding === '' || weight === undefined) continue;
    weights.set(coding === 'x-gzip' ? 'gzip' : coding, weight);
  }
  let best: Coding | undefined;
  let bestWeight = 0;
  for (const coding of CODINGS) {
    const weight = weights.get(coding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) [best, bestWeight] = [coding, weight];
  }
  return best;
}

/** The `q` parameter's value (1 without one), or `undefined` when it is not a qvalue. */
function weightOf(params: readonly string[]): number | undefined {
  for (const param of params) {
    const [key = '', value = ''] = param.split('=');
    if (key.trim().toLowerCase() !== 'q') continue;
    const text = value.trim();
    const weight = Number(text);
    return text !== '' && weight >= 0 && weight <= 1 ? weight : undefined;
  }
  return 1;
}
