import type { Authenticate, AuthOutcome } from '../../auth/index.js';
import type { AuthOutcomeEvent } from '../../events/index.js';
import type { FailurePolicy, RateDecision, RateLimiting } from '../../ratelimit/index.js';
import { refuse, type Answer } from '../answer.js';
import type { Exchange, Step } from '../exchange.js';
import { applyLimit } from '../limit-decision.js';
import { pendingAuth, settleAuth, type KeyGuard } from './key-guard.js';

/**
 * Authentication: a request that is no operation gets its 404 or 405 here, past the key guard
 * (`key-guard.ts`); an operation that requires a key gets its `Authorization` checked under the
 * guard (401 for anything but a valid, unrevoked key; 503 when keys cannot be checked). Absent
 * `authenticate` (AUTH=off), every operation passes without identity.
 */
export function createAuthenticationStep(
  authenticate: Authenticate | undefined,
  rateLimiting: RateLimiting | undefined,
  guard: KeyGuard,
  onRedisFailure: FailurePolicy | 'off',
): Step {
  async function missed(x: Exchange): Promise<Answer | undefined> {
    return (await guard.chargeAnonymous(x)) ?? x.miss;
  }
  // Synchronous where there is nothing to wait for: no key to check, no limit to charge.
  return function authentication(x) {
    if (x.operation === undefined) return rateLimiting === undefined ? x.miss : missed(x);
    if (authenticate === undefined || !x.operation.requiresAuth) return undefined;
    return check(x, authenticate);
  };

  async function check(x: Exchange, authenticate: Authenticate): Promise<Answer | undefined> {
    const ip = (x.client as NonNullable<Exchange['client']>).ip;
    let refusal: RateDecision | undefined;
    const mayVerify = rateLimiting === undefined ? undefined : () => (refusal = guard.refusalOf(ip)) === undefined;
    const startedAt = performance.now();
    const auth = await authenticate(x.req.headers.authorization, mayVerify);
    const verified = auth.kind === 'authenticated' ? auth.verified : auth.kind === 'unavailable' || (auth.kind === 'rejected' && auth.tokenSent);
    const timing = { verified, startedAt, durationMs: performance.now() - startedAt };
    if (auth.kind === 'authenticated' && rateLimiting?.checksRevocation === true) pendingAuth.set(x, timing);
    else settleAuth(x, outcomeOf(auth), timing);

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
  }
}

function outcomeOf(auth: AuthOutcome): AuthOutcomeEvent['outcome'] {
  if (auth.kind !== 'rejected') return auth.kind;
  if (!auth.tokenSent) return 'missing';
  return auth.reason === 'revoked' ? 'revoked' : 'rejected';
}
