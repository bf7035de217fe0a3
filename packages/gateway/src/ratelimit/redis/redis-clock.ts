/**
 * Redis's clock minus this process's. A reply carries Redis's TIME as the call ran; read late (a
 * busy event loop), it makes the difference look smaller than it is, never larger: so the largest
 * of the last 10 to 20 s is taken, which also follows a clock that moves.
 */
export function createClockOffset(): { observe(sample: number): void; get(): number | undefined } {
  const EPOCH_MS = 10_000;
  let epoch = 0;
  let current: number | undefined;
  let previous: number | undefined;
  return {
    observe(sample: number): void {
      const at = Math.floor(Date.now() / EPOCH_MS);
      if (at !== epoch) {
        previous = at === epoch + 1 ? current : undefined;
        current = undefined;
        epoch = at;
      }
      if (current === undefined || sample > current) current = sample;
    },
    get(): number | undefined {
      if (current === undefined) return previous;
      return previous === undefined ? current : Math.max(current, previous);
    },
  };
}
