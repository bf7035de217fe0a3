import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import type { Authenticator } from './auth/index.js';
import type { AnswerDocs } from './docs/index.js';
import type { GatewayConfig } from './config/index.js';
import { DEPRECATION_NOTES_PATH, deprecationNotes } from './deprecation/index.js';
import { publishRequestEnd, publishRequestStart } from './events/index.js';
import type { Answer } from './pipeline/answer.js';
import { answerFailure, writeAnswer } from './pipeline/writer.js';
import { openExchange, type Exchange, type Step } from './pipeline/exchange.js';
import { createListener } from './pipeline/listener.js';
import { createAuthenticationStep } from './pipeline/steps/authenticate.js';
import { createBodyStep } from './pipeline/steps/body.js';
import { createCorsStep } from './pipeline/steps/cors.js';
import { createDocsStep } from './pipeline/steps/docs.js';
import { createForwardStep } from './pipeline/steps/forward.js';
import { createKeyGuard } from './pipeline/steps/key-guard.js';
import { createRateLimitStep } from './pipeline/steps/rate-limit.js';
import { createRouting } from './pipeline/steps/route.js';
import { createServicePaths, type OthersReadiness, type ReadinessCheck } from './pipeline/steps/service-paths.js';
import { createSunsetStep } from './pipeline/steps/sunset.js';
import { createUsageStep } from './pipeline/steps/usage.js';
import type { Upstream } from './proxy/index.js';
import type { RateLimiting } from './ratelimit/index.js';
import { createRouteTable, type Operation } from './routing/index.js';
import { requestArrived } from './sources/file-stamp.js';

export interface GatewayDeps {
  readonly upstream: Upstream;
  /** The operations of the interface document (see `loadOperations`). */
  readonly operations: readonly Operation[];
  /** What else must answer for /readyz to say ready (the upstream always must): Redis, say. */
  readonly readiness?: readonly ReadinessCheck[];
  /** The other workers' readiness, asked of the primary: `/readyz` says ready only when all are. */
  readonly othersReady?: OthersReadiness | undefined;
  /** Checks API keys; absent when AUTH=off (every request passes without identity). */
  readonly authenticate?: Authenticator | undefined;
  /** Per-plan limits; absent when RATE_LIMITS=off. */
  readonly rateLimiting?: RateLimiting | undefined;
  /** Milliseconds since the epoch; injected so tests can stand on either side of a sunset. */
  readonly now?: () => number;
  /** Names this gateway in its events (`RequestRecord.source`), for its own subscribers. */
  readonly source?: object;
  /** The API document and its reference page (see `createDocs`); absent, the gateway serves neither. */
  readonly docs?: AnswerDocs | undefined;
}

/**
 * The gateway as a server, not yet listening. Every request goes down the same named steps, and
 * the first that answers ends it; the events of each step are published for logs, metrics, traces.
 */
export function createGateway(config: GatewayConfig, deps: GatewayDeps): Server | TlsServer {
  const { upstream, rateLimiting } = deps;
  const source = deps.source ?? {};
  const matchRoute = createRouteTable(deps.operations);
  const docUrl = config.deprecationDocUrl ?? DEPRECATION_NOTES_PATH;
  const now = deps.now ?? Date.now;
  const guard = createKeyGuard(rateLimiting, now, config.rateLimits.mode === 'on' ? config.rateLimits.maxAddresses : undefined);
  const methodsAt = (path: string) => {
    const match = matchRoute('OPTIONS', path);
    return match.kind === 'not_found' ? undefined : match.allow;
  };
  const notes = config.deprecationDocUrl === undefined ? deprecationNotes(deps.operations) : undefined;

  const steps: Step[] = [
    createServicePaths([{ name: 'upstream', ready: () => upstream.ready() }, ...(deps.readiness ?? [])], notes, deps.othersReady),
    ...(deps.docs === undefined ? [] : [createDocsStep(deps.docs)]),
    ...(config.cors === undefined ? [] : [createCorsStep(config.cors, methodsAt)]),
    createRouting(matchRoute, config.trustProxy, docUrl),
    createAuthenticationStep(deps.authenticate, rateLimiting, guard),
    createUsageStep(rateLimiting, guard),
    ...(rateLimiting === undefined ? [] : [createRateLimitStep(guard)]),
    createSunsetStep(config.enforceSunset, now),
    createBodyStep(config.bodyLimitBytes),
  ];
  const forward = createForwardStep(upstream, {
    target: config.upstream.url,
    basePath: config.upstream.basePath,
    forwardAuthorization: config.upstream.forwardAuthorization,
  });

  /**
   * The steps from `from` on, then the forward. Synchronous as long as the steps are: a request
   * waits on a promise only where a step does (a key check, a limit, a body), not at every step.
   */
  function run(x: Exchange, from: number): Answer | Promise<Answer> {
    for (let i = from; i < steps.length; i++) {
      const result = (steps[i] as Step)(x);
      if (result instanceof Promise) return result.then((answer) => answer ?? run(x, i + 1));
      if (result !== undefined) return result;
    }
    return forward(x);
  }

  /** Writes the answer (or the failure's), then tells the request's end. */
  function end(x: Exchange, answer: Answer | undefined, failure?: unknown): void {
    try {
      if (answer === undefined) answerFailure(x, failure);
      else writeAnswer(x, answer);
    } catch (writeFailure) {
      answerFailure(x, writeFailure);
    }
    publishRequestEnd({
      request: x.record,
      status: x.res.statusCode,
      durationMs: performance.now() - x.record.startedAt,
      ...(x.failure === undefined ? {} : { error: x.failure }),
    });
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    requestArrived();
    const x = openExchange(req, res, source);
    if (publishRequestStart.active) publishRequestStart({ request: x.record, headers: req.headers });
    let answer: Answer | Promise<Answer>;
    try {
      answer = run(x, 0);
    } catch (failure) {
      return end(x, undefined, failure);
    }
    if (answer instanceof Promise)
      answer.then(
        (settled) => end(x, settled),
        (failure: unknown) => end(x, undefined, failure),
      );
    else end(x, answer);
  }
  return createListener(config, onRequest, { matchRoute, decideAnonymous: guard.decideAnonymous, docUrl, source });
}
