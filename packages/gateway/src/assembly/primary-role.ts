import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { attachLedger, createAdmin, createHostCheck, createMemoryLedger, type AdminTokens } from '../admin/index.js';
import type { GatewayConfig } from '../config/index.js';
import { QUESTION, type Port } from '../ipc/index.js';
import { createMetricsServer } from '../observability/metrics-server.js';
import { mergeUsed, type UsedBySubject } from '../ratelimit/index.js';
import { hostLimits } from '../ratelimit/primary/index.js';
import { createRedisClient, type RedisClient } from '../redis/index.js';
import { createAdminSource } from './admin-source.js';
import { createClusterMetrics } from './cluster-metrics.js';
import { hostSettingsOf } from './limits.js';
import type { Placement } from './placement.js';

/** How long a worker may take to say whether it is ready (its readiness asks the upstream, bounded to 1 s). */
const ANSWER_TIMEOUT_MS = 2_000;
/** How long a worker may take to say what Redis said last of some accounts (a lookup in a map). */
const VIEWS_TIMEOUT_MS = 500;

/** A worker as the primary's services see it. */
export interface MemberView {
  readonly id: number;
  readonly pid: number;
  readonly port: Port;
  /** `retiring`: handing its connections over (a reload), then it exits. */
  readonly state: 'starting' | 'listening' | 'retiring';
}

export interface PrimaryRoleOptions {
  /** The settings in force and where they put the state (a reload replaces them). */
  readonly config: () => GatewayConfig;
  readonly placement: () => Placement;
  /** The admin tokens in force; `undefined` without the admin API. */
  readonly tokens: () => AdminTokens | undefined;
  /** The workers: every one the primary runs, oldest first. */
  readonly members: () => readonly MemberView[];
  /** True until every first worker listens: a worker still starting then is not ready. */
  readonly starting: () => boolean;
  readonly logger: Logger;
  /** The clock of the limits the primary keeps and of the admin API; tests inject one. */
  readonly now?: (() => number) | undefined;
  /** For tests: the Redis script's clock. */
  readonly redisNow?: (() => number) | undefined;
}

/**
 * The primary's half of the gateway, the same in a gateway's primary process and in a test's
 * process: the limits it keeps for its workers where the placement puts them there (and the
 * ledger beside them), the workers' metrics summed, the admin API reading the limits where they
 * are, and the answer to a worker asking whether the others are ready. `attach` each worker.
 */
export function createPrimaryRole(options: PrimaryRoleOptions) {
  const { config, members } = options;
  const now = options.now ?? Date.now;
  const host = hostLimits(hostSettingsOf(config().rateLimits), options.now === undefined ? {} : { now: options.now });
  const ledger = createMemoryLedger();
  let redis: { readonly url: string; readonly client: RedisClient } | undefined;
  /** The primary's own Redis client, made when first needed and again when REDIS_URL changes. */
  const redisClient = (): RedisClient | undefined => {
    const settings = config().redis;
    if (settings === undefined) return undefined;
    if (redis?.url !== settings.url) {
      void redis?.client.close();
      redis = { url: settings.url, client: createRedisClient(settings.url, settings) };
    }
    return redis.client;
  };
  const listening = () => members().filter((member) => member.state === 'listening');
  const adminSource = createAdminSource({
    config,
    placement: options.placement,
    host,
    ledger,
    redis: redisClient,
    worker: () => listening().at(-1)?.port,
    now,
    redisNow: options.redisNow,
  });
  const metrics = config().metrics === undefined ? undefined : createClusterMetrics(() => members().filter((member) => member.state !== 'starting'));
  const tokens = options.tokens();
  const admin =
    metrics === undefined || tokens === undefined
      ? undefined
      : createAdmin({
          config,
          // Set whenever the admin API is: a reload only ever replaces them with others.
          tokens: () => options.tokens() as AdminTokens,
          source: () => adminSource.source(),
          redis: redisClient,
          plans: () => adminSource.plans(),
          plansContext: () => adminSource.plansContext(),
          metrics: () => metrics.json(),
          workers: () => options.placement().workers,
          logger: options.logger,
          registry: metrics.own,
          now,
        });
  const metricsServer: Server | undefined =
    metrics === undefined
      ? undefined
      : createMetricsServer(
          metrics,
          admin,
          createHostCheck(() => config().metrics),
        );
  // The admin API's client connects from the start, in the background (it fails what it is asked meanwhile).
  if (admin !== undefined) redisClient();

  /** What the other workers lack that `down` (the asker's own) does not name, each with its worker. */
  async function othersReadiness(askerId: number, down: readonly string[]): Promise<string[]> {
    const others = members().filter((member) => member.id !== askerId && member.state !== 'retiring');
    const answers = await Promise.all(
      others.map(async (member): Promise<string[]> => {
        const name = `worker ${member.id}`;
        // Until the gateway is up, a worker still starting is not ready; later it is a replacement, not yet serving.
        if (member.state === 'starting') return options.starting() ? [`${name} (starting)`] : [];
        const answer = await member.port.ask(QUESTION.readiness, ANSWER_TIMEOUT_MS);
        if (answer === true) return [];
        if (!Array.isArray(answer)) return [`${name} (no answer)`];
        return (answer as string[]).filter((what) => !down.includes(what)).map((what) => `${what} (${name})`);
      }),
    );
    return answers.flat();
  }

  /**
   * What Redis had counted for some accounts as the workers other than the asker saw it last, the
   * most each window: a worker falling back (the `local` policy) seeds the gateway's one share with
   * it. A worker that does not answer within `VIEWS_TIMEOUT_MS` is left out.
   */
  async function othersViews(askerId: number, subjects: unknown): Promise<UsedBySubject> {
    const others = members().filter((member) => member.id !== askerId && member.state !== 'starting');
    const answers = await Promise.all(others.map((member) => member.port.ask(QUESTION.redisViews, VIEWS_TIMEOUT_MS, subjects)));
    const used: UsedBySubject = {};
    for (const answer of answers) if (typeof answer === 'object' && answer !== null) mergeUsed(used, answer as UsedBySubject);
    return used;
  }

  return {
    metrics,
    /** The admin listener (`/metrics`, and `/admin` with the admin API), not yet listening; `undefined` without METRICS_PORT. */
    metricsServer,
    /** Serves a worker: its checks of the limits kept here, its ledger notes, its questions. */
    attach(member: Pick<MemberView, 'id' | 'port'>): void {
      host.attach(member.port);
      attachLedger(member.port, ledger);
      member.port.answer(QUESTION.othersReadiness, async (down) => othersReadiness(member.id, Array.isArray(down) ? (down as string[]) : []));
      member.port.answer(QUESTION.redisViews, async (subjects) => othersViews(member.id, subjects));
    },
    /** The settings changed (a reload in force). */
    reloaded(): void {
      host.reload(hostSettingsOf(config().rateLimits));
      adminSource.reloaded();
    },
    async close(): Promise<void> {
      metricsServer?.closeAllConnections();
      metricsServer?.close();
      await redis?.client.close();
    },
  };
}

export type PrimaryRole = ReturnType<typeof createPrimaryRole>;
