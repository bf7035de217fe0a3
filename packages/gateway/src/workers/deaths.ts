/** More deaths than this within `DEATH_WINDOW_MS` is a crash loop: the gateway stops (exit 1). */
export const MAX_DEATHS = 5;
export const DEATH_WINDOW_MS = 60_000;

/**
 * The deaths of workers that died unasked, within the last `DEATH_WINDOW_MS`: `count` says
 * whether one more still leaves the gateway running (false: a crash loop).
 */
export function createDeathCount(now: () => number = Date.now) {
  const deaths: number[] = [];
  return {
    /** Counts a death now; false when it makes more than `MAX_DEATHS` within the window. */
    count(): boolean {
      const at = now();
      deaths.push(at);
      while ((deaths[0] as number) < at - DEATH_WINDOW_MS) deaths.shift();
      return deaths.length <= MAX_DEATHS;
    },
    get recent(): number {
      return deaths.length;
    },
  };
}

/** What the gateway says as it stops in a crash loop. */
export const crashLoop = (deaths: number): string =>
  `gateway stopping: ${deaths} workers died within ${DEATH_WINDOW_MS / 1000} s, a crash loop; see the lines above for why`;
