/**
 * Redis's clock minus this process's, from replies that carry Redis's TIME as the call ran. Each
 * reply bounds it: at least Redis's time minus this process's when the reply was read (read late,
 * by a busy event loop, Redis looks further behind than it is), at most Redis's time minus this
 * process's when the call was sent (Redis ran it after). The estimate is the largest lower bound
 * seen, so a good reading taken on a quiet loop is kept through a burst whose replies are all read
 * hundreds of ms late (which would make every deadline that much early), and it is replaced when
 * a reply's upper bound is below it: the clock moved back (a failover to another host, say). A
 * clock that moves forward raises the lower bounds at once.
 */
export function createClockOffset(): { observe(lower: number, upper: number): void; get(): number | undefined } {
  let current: number | undefined;
  return {
    observe(lower: number, upper: number): void {
      if (current === undefined || current > upper || lower > current) current = lower;
    },
    get: () => current,
  };
}
