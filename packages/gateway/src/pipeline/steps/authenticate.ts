import type { Authenticate, AuthOutcome } from '../../auth/index.js';
import { publishAuthOutcome, type AuthOutcomeEvent } from '../../events/index.js';
import type { FailurePolicy, RateDecision, RateLimiting } from '../../ratelimit/index.js';
import { refuse, type Answer } from '../answer.js';
import type { Exchange, Step } from '../exchange.js';
import { applyLimit } from '../limit-decision.js';

/**
 * The guard against key guessing, whole: every request without a valid key (no operation at its
 * path, no key, a bad or revoked key) is charged to its client address's anonymous limit; while an
 * address is refused under it, keys never seen before are not verified (a few a second at most),
 * so guessing costs the guesser, not the gateway's CPU.
 */
export interface KeyGuard {
  /** Charges the address's anonymous limit: an answer when it refuses. */
  chargeAnonymous(x: Exchange): Promise<Answer | undefined>;
  /** The verified key's own limit; a key found revoked there is answered as any refused key. */
  limitKey(x: Exchange): Promise<Answer | undefined>;
}

interface AuthTiming {
  readonly verified: boolean;
  readonly startedAt: number;
  readonly durationMs: number;
}
/** Verifications whose outcome the limit's round trip settles (the Redis deny-list is asked there). */
const pending = new WeakMap<Exchange, AuthTiming>();

const settle = (x: Exchange, outcome: AuthOutcomeEvent['outcome'], timing: AuthTiming) => publishAuthOutcome({ request: x.record, outcome, ...timing });

export function createKeyGuard(rateLimiting: RateLimiting | undefined, onRedisFailure: FailurePolicy | 'off'): KeyGuard {
  async function chargeAnonymous(x: Exchange): Promise<Answer | undefined> {
    if (rateLimiting === undefined) return undefined;
    const ip = (x.client as NonNullable<Exchange['client']>).ip;
    const verdict = await applyLimit(x, () => rateLimiting.forAnonymous(ip), onRedisFailure, 'anonymous');
    return verdict.kind === 'refused' ? verdict.answer : undefined;
  }
  return {
    chargeAnonymous,
    async limitKey(x) {
      const identity = x.identity;
      if (rateLimiting === undefined || identity === undefined) return undefined;
      const timing = pending.get(x);
      let verdict;
      try {
        verdict = await applyLimit(x, () => rateLimiting.forIdentity(identity), onRedisFailure, identity.plan);
      } finally {
        if (timing !== undefined && verdict?.kind !== 'revoked') settle(x, 'authenticated', timing);
      }
      if (verdict.kind === 'refused') return verdict.answer;
      if (verdict.kind === 'admitted') return undefined;
      x.record.authFailure = 'revoked';
      if (timing !== undefined) settle(x, 'revoked', timing);
      return (await chargeAnonymous(x)) ?? refuse('unauthorized', undefined, { 'www-authenticate': 'Bearer error="invalid_token"' });
    },
  };
}

/**
 * Authentication: a request that is no operation gets its 404 or 405 here, past the guard; an
 * operation that requires a key gets its `Authorization` checked (401 for anything but a valid,
 * unrevoked key; 503 when keys cannot be checked). Absent `authenticate` (AUTH=off), every
 * operation passes without identity.
 */
export function createAuthenticationStep(authenticate: Authenticate | undefined, rateLimiting: RateLimiting | undefined, guard: KeyGuard, onRedisFailure: FailurePolicy | 'off'): Step {
  return async function authentication(x) {
    if (x.operation === undefined) return (await guard.chargeAnonymous(x)) ?? x.miss;
    if (authenticate === undefined || !x.operation.requiresAuth) return undefined;
    const ip = (x.client as NonNullable<Exchange['client']>).ip;
    let refusal: RateDecision | undefined;
    const mayVerify = rateLimiting === undefined ? undefined : () => (refusal = rateLimiting.anonymousRefusal(ip)) === undefined;
    const startedAt = performance.now();
    const auth = await authenticate(x.req.headers.authorization, mayVerify);
    const verified = auth.kind === 'authenticated' ? auth.verified : auth.kind === 'unavailable' || (auth.kind === 'rejected' && auth.tokenSent);
    const timing = { verified, startedAt, durationMs: performance.now() - startedAt };
    if (auth.kind === 'authenticated' && rateLimiting?.checksRevocation === true) pending.set(x, timing);
    else settle(x, outcomeOf(auth), timing);

    if (auth.kind === 'throttled') {
      x.record.authFailure = 'not verified: the client is over its anonymous limit';
      // A remembered refusal always refuses; the fallback only keeps the types honest.
      const verdict = await applyLimit(x, async () => refusal as RateDecision, onRedisFailure, 'anonymous');
      return verdict.kind === 'refused' ? verdict.answer : refuse('rate_limited');
    }
    if (auth.kind !== 'authenticated') {
      const refused = await guard.chargeAnonymous(x);
      if (refused !== undefined) return refused;
    }
    if (auth.kind === 'unavailable') {
      x.record.authFailure = auth.reason;
      return refuse('auth_unavailable', undefined, { 'retry-after': '1' });
    }
    if (auth.kind === 'rejected') {
      x.record.authFailure = auth.reason;
      if (auth.keyId !== undefined) x.record.keyId = auth.keyId;
      return refuse('unauthorized', undefined, { 'www-authenticate': auth.tokenSent ? 'Bearer error="invalid_token"' : 'Bearer' });
    }
    x.identity = auth.identity;
    x.record.keyId = auth.identity.keyId;
    x.record.subject = auth.identity.subject;
    return undefined;
  };
}

function outcomeOf(auth: AuthOutcome): AuthOutcomeEvent['outcome'] {
  if (auth.kind !== 'rejected') return auth.kind;
  if (!auth.tokenSent) return 'missing';
  return auth.reason === 'revoked' ? 'revoked' : 'rejected';
}
