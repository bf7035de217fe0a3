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
  let open: Waiting<T, R>[] = [];
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    if (open.length === 0) return;
    const batch = open;
    open = [];
    let sent: Promise<readonly R[]>;
    try {
      sent = options.send(batch.map((waiting) => waiting.item));
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (results) => {
        if (results.length !== batch.length) {
          const error = new Error(`a batch of ${batch.length} got ${results.length} results`);
          for (const waiting of batch) waiting.reject(error);
          return;
        }
        for (let i = 0; i < batch.length; i++) (batch[i] as Waiting<T, R>).resolve(results[i] as R);
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }

  return function ask(item) {
    return new Promise<R>((resolve, reject) => {
      open.push({ item, resolve, reject });
      if (open.length >= options.maxItems) {
        flush();
        return;
      }
      if (scheduled) return;
      scheduled = true;
      if (options.windowMs > 0) setTimeout(flush, options.windowMs);
      else setImmediate(flush);
    });
  };
}
