import { CHANNELS, type LimitDecisionEvent } from '../../events/index.js';
import { subscribeAll } from '../../observability/subscribe.js';
import type { Calendar, Day } from '../../ratelimit/index.js';
import { PartlyWrittenError, type KeyRecord, type Ledger, type LedgerNotes } from './ledger.js';

export interface RecorderOptions {
  /** Where the notes go: `writeNow` (a ledger in this process) takes them at once, else `write` in batches. */
  readonly ledger: Pick<Ledger, 'write'> & { readonly writeNow?: (notes: LedgerNotes) => void };
  /** The days of `QUOTA_TIME_ZONE`. */
  readonly calendar: Calendar;
  /**
   * For tests: the clock that says which day a decision is of. Without it, the decision's own
   * time (`startedAt`, the monotonic clock) is put on the wall clock by an offset read once a
   * minute: reading the wall clock for every decision cost 100 to 170 ns here, the rest of the
   * recorder 10 to 50.
   */
  readonly now?: () => number;
  /** The gateway whose decisions these are (tests run several in one process). */
  readonly source: object;
  /** How long notes wait to be written elsewhere (Redis, the primary), adding up meanwhile: 0, the next turn of the event loop. */
  readonly intervalMs?: number;
}

/** Keys remembered as seen today at most; past it the memory starts again (each key is then written once more). */
const MAX_NOTED = 1_000_000;

/**
 * Writes the ledger from the decisions this gateway makes, as a subscriber of its `limit decision`
 * events, so the request path does nothing for it: a key's first decision of the day (in this
 * process) is a sighting, an admission that a plan in shadow would have refused is counted. A
 * decision costs a map lookup and, rarely, a note. A ledger elsewhere gets the notes in batches,
 * one in flight at a time: what is noted meanwhile waits for it and goes in the next, so a storm
 * of shadow refusals makes larger batches, not more of them. What a batch failed to write is
 * noted again (and only that): its keys at their next request, its refusals with the next batch
 * of the same day. Returns what
 * stops it.
 */
export function recordLedger(options: RecorderOptions): () => void {
  const { ledger, calendar } = options;
  const intervalMs = options.intervalMs ?? 0;
  let offset = Date.now() - performance.now();
  const sync = setInterval(() => (offset = Date.now() - performance.now()), 60_000);
  sync.unref();
  const timeOf = options.now ?? ((event: LimitDecisionEvent) => offset + event.startedAt);
  /** Each key's day of its last sighting written (or under way). */
  const noted = new Map<string, string>();
  let day: Day | undefined;
  let sightings: KeyRecord[] = [];
  /** `account\nplan` → refusals (an account holds no line feed: it travels in a header). */
  let refusals = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  /** The batch being written, if any. */
  let writing: Promise<void> | undefined;

  function notes(date: string): LedgerNotes {
    const made: LedgerNotes = {
      day: date,
      sightings,
      shadowRefusals: [...refusals].map(([key, count]) => {
        const cut = key.lastIndexOf('\n');
        return { account: key.slice(0, cut), plan: key.slice(cut + 1), count };
      }),
    };
    sightings = [];
    refusals = new Map();
    return made;
  }

  /** Writes what was noted for `date`, after the batch in flight (a day's last notes at midnight may follow one). */
  function flush(date: string): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (sightings.length === 0 && refusals.size === 0) return;
    const batch = notes(date);
    const written: Promise<void> = (writing ?? Promise.resolve())
      .then(() => ledger.write(batch))
      .catch((error: unknown) => {
        // Only what was not written is noted again: a refusal written twice would count twice.
        const unwritten = error instanceof PartlyWrittenError ? error.unwritten : batch;
        for (const record of unwritten.sightings) if (noted.get(record.keyId) === date) noted.delete(record.keyId);
        if (day?.date !== date) return;
        for (const { account, plan, count } of unwritten.shadowRefusals) add(account, plan, count);
      })
      .finally(() => {
        if (writing !== written) return;
        writing = undefined;
        schedule();
      });
    writing = written;
  }

  /** The next batch, unless one is in flight (its end schedules it) or due already. */
  function schedule(): void {
    if (timer !== undefined || writing !== undefined || day === undefined || (sightings.length === 0 && refusals.size === 0)) return;
    const date = day.date;
    timer = setTimeout(() => flush(date), intervalMs);
    timer.unref();
  }

  function add(account: string, plan: string, count: number): void {
    const key = `${account}\n${plan}`;
    refusals.set(key, (refusals.get(key) ?? 0) + count);
  }

  function onDecision(event: LimitDecisionEvent): void {
    const { identity } = event;
    if (identity === undefined || event.request?.source !== options.source) return;
    const at = timeOf(event);
    if (day === undefined || at >= day.end || at < day.start) {
      // What was noted belongs to the day before: written under its date.
      if (day !== undefined) flush(day.date);
      day = calendar.dayOf(at);
    }
    const date = day.date;
    let changed = false;
    if (noted.get(identity.keyId) !== date) {
      if (noted.size >= MAX_NOTED) noted.clear();
      noted.set(identity.keyId, date);
      sightings.push({
        account: identity.subject,
        keyId: identity.keyId,
        plan: identity.plan,
        limits: identity.limits,
        expiresAt: identity.expiresAt,
        seen: date,
      });
      changed = true;
    }
    if (event.decision === 'shadow_limited') {
      add(identity.subject, event.plan, 1);
      changed = true;
    }
    if (!changed) return;
    if (ledger.writeNow !== undefined) ledger.writeNow(notes(date));
    else schedule();
  }

  const stop = subscribeAll({ [CHANNELS.limitDecision]: onDecision });
  return () => {
    stop();
    clearInterval(sync);
    if (day !== undefined) flush(day.date);
  };
}
