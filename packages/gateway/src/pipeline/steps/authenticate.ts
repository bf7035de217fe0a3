import type { Authenticator, AuthOutcome, Identity } from '../../auth/index.js';
import type { AuthOutcomeEvent } from '../../events/index.js';
import type { RateLimiting } from '../../ratelimit/index.js';
import type { Answer } from '../answer.js';
import { AUTH_UNAVAILABLE, unauthorized } from '../auth-answers.js';
import { clientOf, type Exchange, type Step } from '../exchange.js';
import { applyDecision } from '../limit-decision.js';
import { settleAuth, type KeyGuard } from './key-guard.js';

/**
 * Authentication: a request that is no operation gets its 404 or 405 here, past the key guard
 * (`key-guard.ts`); an operation that requires a key gets its `Authorization` checked under the
 * guard (401 for anything but a valid, unrevoked key; 503 when keys cannot be checked). Absent
 * `authenticator` (AUTH=off), every operation passes without identity.
 */
export function createAuthenticationStep(authenticator: Authenticator | undefined, rateLimiting: RateLimiting | undefined, guard: KeyGuard): Step {
  async function missed(x: Exchange): Promise<Answer | undefined> {
    return (await guard.chargeAnonymous(x)) ?? x.miss;
  }
  // Synchronous where there is nothing to wait for: no key to check, no limit to charge.
  return function authentication(x) {
    if (x.operation === undefined) return rateLimiting === undefined ? x.miss : missed(x);
    if (authenticator === undefined || !x.operation.requiresAuth) return undefined;
    return check(x, authenticator);
  };

  /**
   * The header read, the cache asked; a key it does not know is verified only while the client's
   * address is not refused under its anonymous limit (or within the guard's few checks a second):
   * key guessing costs the guesser, not the gateway's CPU.
   */
  async function check(x: Exchange, authenticator: Authenticator): Promise<Answer | undefined> {
    const startedAt = performance.now();
    const bearer = authenticator.read(x.req.headers.authorization);
    if (bearer.kind !== 'token') return refused(x, bearer, startedAt);
    const known = authenticator.known(bearer.token);
    let outcome: AuthOutcome;
    if (known.identity !== undefined) {
      outcome = await authenticator.revoked(known.identity, false);
    } else {
      const refusal = rateLimiting === undefined ? undefined : guard.refusalOf(clientOf(x).ip);
      if (refusal !== undefined) {
        settleAuth(x, 'throttled', { verified: false, startedAt, durationMs: performance.now() - startedAt });
        x.record.authFailure = 'not verified: the client is over its anonymous limit';
        const verdict = applyDecision(x, refusal, startedAt);
        // A remembered refusal is a refusal: the guard never remembers anything else.
        if (verdict.kind === 'refused') return verdict.answer;
      }
      outcome = await authenticator.verify(bearer.token, known);
      if (outcome.kind === 'authenticated') outcome = await authenticator.revoked(outcome.identity, true);
    }
    if (outcome.kind !== 'authenticated') return refused(x, outcome, startedAt);
    // Asked for every request, not once per key: a plan may come or go with the plans file.
    if (rateLimiting !== undefined && !rateLimiting.knowsPlan(outcome.identity.plan)) return refused(x, unknownPlan(outcome.identity), startedAt);
    const timing = { verified: outcome.verified, startedAt, durationMs: performance.now() - startedAt };
    // With limits in Redis, the deny-list is asked in the limit's round trip, which tells the outcome.
    if (rateLimiting?.checksRevocation === true) x.pendingAuth = timing;
    else settleAuth(x, 'authenticated', timing);
    x.identity = outcome.identity;
    x.record.keyId = outcome.identity.keyId;
    x.record.subject = outcome.identity.subject;
    return undefined;
  }

  /** A key that cannot pass: its address's anonymous limit is charged (its 429 first), then 401 or 503. */
  async function refused(x: Exchange, outcome: Exclude<AuthOutcome, { kind: 'authenticated' }>, startedAt: number): Promise<Answer> {
    const verified = outcome.kind === 'unavailable' || outcome.tokenSent;
    settleAuth(x, outcomeOf(outcome), { verified, startedAt, durationMs: performance.now() - startedAt });
    const charged = await guard.chargeAnonymous(x);
    if (charged !== undefined) return charged;
    x.record.authFailure = outcome.reason;
    if (outcome.kind === 'rejected' && outcome.keyId !== undefined) x.record.keyId = outcome.keyId;
    return outcome.kind === 'unavailable' ? AUTH_UNAVAILABLE : unauthorized(outcome.tokenSent, outcome.message);
  }
}

/** A valid key naming a plan the plans file in force does not have: refused as any key that cannot pass. */
function unknownPlan(identity: Identity): Extract<AuthOutcome, { kind: 'rejected' }> {
  return {
    kind: 'rejected',
    tokenSent: true,
    keyId: identity.keyId,
    reason: `plan ${identity.plan} is not in the plans file`,
    message: `This API key's plan (${identity.plan}) is not one this gateway has: ask whoever issued it for a key of a current plan.`,
  };
}

function outcomeOf(auth: Exclude<AuthOutcome, { kind: 'authenticated' }>): AuthOutcomeEvent['outcome'] {
  if (auth.kind === 'unavailable') return 'unavailable';
  if (!auth.tokenSent) return 'missing';
  return auth.reason === 'revoked' ? 'revoked' : 'rejected';
}
