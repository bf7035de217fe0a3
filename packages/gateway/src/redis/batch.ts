/** Collects what many requests ask of Redis, so they share one round trip. */
export interface BatchOptions<T, R> {
  /**
   * Sends the items of one batch, in arrival order, and resolves with one result per item (or
   * rejects: every item of the batch then fails with that error).
   */
  readonly send: (items: readonly T[]) => Promise<readonly R[]>;
  /**
   * How long the first item waits for others: 0 sends at the end of the current event-loop turn
   * (every request parsed in the same turn joins), more waits that many ms (bounded latency for
   * fuller batches).
   */
  readonly windowMs: number;
  /** A batch this large is sent at once: keeps one script run short for Redis. */
  readonly maxItems: number;
  /**
   * While a batch is out, the next one waits for its answer (at most this many ms), so a batch
   * grows with the load rather than with the event-loop turn: under load, each call carries what
   * arrived during the previous one's round trip, and idle there is no wait at all (nothing is
   * out). Bounded, so a stalled call does not hold the next one for its whole deadline: past it,
   * the next batch leaves as it would without holding. Absent: every batch leaves at once.
   */
  readonly holdWhileOutMs?: number;
  /** The clock of the hold (tests inject one); `performance.now` by default. */
  readonly now?: () => number;
}

interface Waiting<T, R> {
  readonly item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * Returns `ask(item)`: the item joins the open batch, sent when the window closes (or it is full),
 * and the promise settles with the item's own result. Batches are independent: one failing fails
 * only its items, and the next opens at once.
 */
export function createBatch<T, R>(options: BatchOptions<T, R>): (item: T) => Promise<R> {
  const now = options.now ?? (() => performance.now());
  const hold = options.holdWhileOutMs;
  let open: Waiting<T, R>[] = [];
  let scheduled = false;
  /** Batches sent and not yet answered, and when the oldest of them left. */
  let out = 0;
  let outSince = 0;
  let holdTimer: NodeJS.Timeout | undefined;

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    if (options.windowMs > 0) setTimeout(flush, options.windowMs);
    else setImmediate(flush);
  }

  function settled(): void {
    out -= 1;
    if (out === 0) {
      clearTimeout(holdTimer);
      holdTimer = undefined;
      // What arrived meanwhile leaves with the next turn's arrivals, as one batch.
      if (open.length > 0) schedule();
    }
  }

  function flush(): void {
    scheduled = false;
    if (open.length === 0) return;
    if (hold !== undefined && out > 0 && open.length < options.maxItems) {
      const left = outSince + hold - now();
      if (left > 0) {
        // Held: sent when the batch out is answered (`settled`), or when the hold runs out.
        holdTimer ??= setTimeout(() => {
          holdTimer = undefined;
          flushNow();
        }, Math.ceil(left));
        return;
      }
    }
    flushNow();
  }

  function flushNow(): void {
    if (open.length === 0) return;
    const batch = open;
    open = [];
    if (out === 0) outSince = now();
    out += 1;
    let sent: Promise<readonly R[]>;
    try {
      sent = options.send(batch.map((waiting) => waiting.item));
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (results) => {
        settled();
        if (results.length !== batch.length) {
          const error = new Error(`a batch of ${batch.length} got ${results.length} results`);
          for (const waiting of batch) waiting.reject(error);
          return;
        }
        for (let i = 0; i < batch.length; i++) (batch[i] as Waiting<T, R>).resolve(results[i] as R);
      },
      (error: unknown) => {
        settled();
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }

  return function ask(item) {
    return new Promise<R>((resolve, reject) => {
      open.push({ item, resolve, reject });
      if (open.length >= options.maxItems) {
        flushNow();
        return;
      }
      schedule();
    });
  };
}
