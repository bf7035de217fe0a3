/** Redis was not asked: it failed too often lately, and the breaker is open. */
export class CircuitOpenError extends Error {
  constructor(untilMs: number) {
    super(`Redis is not asked until ${new Date(untilMs).toISOString()}: it failed too often`);
    this.name = 'CircuitOpenError';
  }
}

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  readonly failuresToOpen: number;
  /** How long it stays open before one request probes Redis again. */
  readonly openMs: number;
  readonly now: () => number;
}

/**
 * Stops paying the command budget on every request while Redis is known not to answer: after
 * `failuresToOpen` failures in a row, calls are refused at once (the caller applies its failure
 * policy) for `openMs`; then one call probes, and its success closes the circuit, its failure
 * opens it again. Recovery needs no one's help.
 */
export function createCircuitBreaker(options: CircuitBreakerOptions) {
  let failures = 0;
  let openUntil = 0;
  let probing = false;

  return async function guarded<T>(call: () => Promise<T>): Promise<T> {
    const at = options.now();
    const open = failures >= options.failuresToOpen;
    if (open && (at < openUntil || probing)) throw new CircuitOpenError(openUntil);
    const probe = open;
    if (probe) probing = true;
    try {
      const result = await call();
      failures = 0;
      return result;
    } catch (error) {
      failures += 1;
      if (failures >= options.failuresToOpen) openUntil = options.now() + options.openMs;
      throw error;
    } finally {
      if (probe) probing = false;
    }
  };
}
