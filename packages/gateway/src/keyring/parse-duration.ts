const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };

/** The longest duration the keys CLI takes (`--ttl`, `--grace`): its dates stay four-digit years. */
export const MAX_DURATION = { text: '1000y', ms: 1000 * 31_536_000_000 } as const;

/** `90d`, `12h`, `30m`, `1y` → milliseconds; `undefined` for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,6})([smhdwy])$/.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * (UNITS[match[2] as string] as number);
  return ms > 0 ? ms : undefined;
}
