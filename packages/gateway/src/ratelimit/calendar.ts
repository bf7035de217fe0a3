/**
 * Calendar months in a time zone (`QUOTA_TIME_ZONE`), for monthly quotas: a month starts at
 * 00:00 local time on its first day, whatever the zone's offset that day (daylight saving time
 * included). A month can so be 743 or 745 hours long; a quota resets when the local month does.
 */
export interface Calendar {
  readonly zone: string;
  /** The month that holds `at` (ms since the epoch): its first instant, and the next month's. */
  monthOf(at: number): { readonly start: number; readonly end: number };
  /**
   * The starts of four months in a row, from the one before `at`'s to the one after next: what
   * the Redis script picks a month from by Redis's own clock, which may differ a little from this
   * process's.
   */
  boundaries(at: number): readonly number[];
  /**
   * The day that holds `at`: its date (`2026-11-28`), its first instant and the next day's. What
   * the admin API calls today: a day starts at 00:00 local time, as a month does.
   */
  dayOf(at: number): Day;
}

/** A calendar day of the zone: `date` as `YYYY-MM-DD`, from `start` (included) to `end` (ms). */
export interface Day {
  readonly date: string;
  readonly start: number;
  readonly end: number;
}

/** True when `zone` is an IANA time zone this Node knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The calendar of `zone` (`UTC` by default). Throws a RangeError for a zone Node does not know. */
export function createCalendar(zone = 'UTC'): Calendar {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  /** Local wall-clock fields of `at` in the zone. */
  const local = (at: number) => {
    const fields: Record<string, number> = {};
    for (const part of format.formatToParts(at)) if (part.type !== 'literal') fields[part.type] = Number(part.value);
    return fields as { year: number; month: number; day: number; hour: number; minute: number; second: number };
  };
  /** The zone's offset from UTC at `at` (ms; +3_600_000 for UTC+1), to the second. */
  const offsetAt = (at: number) => {
    const f = local(at);
    return Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second) - Math.floor(at / 1000) * 1000;
  };
  /** 00:00 local time on `day` of `month` (0-based; either may overflow into the next month or year). */
  const startOf = (year: number, month: number, day = 1) => {
    const wall = Date.UTC(year, month, day);
    // The offset at the guess, then at the answer: across a change of offset the second is right.
    const guess = wall - offsetAt(wall);
    return wall - offsetAt(guess);
  };
  let cached: { readonly from: number; readonly to: number; readonly starts: readonly number[] } | undefined;
  const startsAround = (at: number) => {
    if (cached !== undefined && at >= cached.from && at < cached.to) return cached.starts;
    const f = local(at);
    let starts = [-1, 0, 1, 2, 3].map((k) => startOf(f.year, f.month - 1 + k));
    // Local midnight that the offset change skipped can put `at` a month early: move by one.
    if (at < (starts[1] as number)) starts = [-2, -1, 0, 1, 2].map((k) => startOf(f.year, f.month - 1 + k));
    cached = { from: starts[1] as number, to: starts[2] as number, starts };
    return starts;
  };
  let today: Day | undefined;
  const dayOf = (at: number): Day => {
    if (today !== undefined && at >= today.start && at < today.end) return today;
    const f = local(at);
    let start = startOf(f.year, f.month - 1, f.day);
    let day = new Date(Date.UTC(f.year, f.month - 1, f.day));
    // As for months: a midnight the offset change skipped can put the start after `at`.
    if (at < start) {
      day = new Date(Date.UTC(f.year, f.month - 1, f.day - 1));
      start = startOf(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
    }
    const end = startOf(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
    return (today = { date: day.toISOString().slice(0, 10), start, end });
  };
  return {
    zone,
    dayOf,
    monthOf(at) {
      const starts = startsAround(at);
      return { start: starts[1] as number, end: starts[2] as number };
    },
    boundaries(at) {
      return startsAround(at).slice(0, 4);
    },
  };
}
