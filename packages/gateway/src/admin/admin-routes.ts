import type { Logger } from 'pino';
import { readBody, BodyTooLargeError } from '../http/read-body.js';
import { checkPlansText, type PlansContext } from '../plans/index.js';
import { adminError, type AdminAnswer } from './admin-answer.js';
import { accountName, keyId, onlyParameters, pageQuery, pathId, type AdminRequest } from './admin-request.js';
import { withRevocation, type AccountBook } from './book/index.js';
import { billingCsv } from './book/billing.js';

/** What the admin API reads and changes where the limits are kept: the account book, or the lone worker that has it. */
export type AccountSource = Pick<AccountBook, 'page' | 'account' | 'billing' | 'check' | 'liftBan' | 'accountOfKey'>;

/** A key revoked by the admin API: from when it is refused, and whether it already was. */
export interface Revoked {
  readonly refusedFrom: string;
  readonly already: boolean;
}

export interface RoutesDeps {
  /** Where the limits are read, now (a reload may move them); `undefined` with RATE_LIMITS=off. */
  readonly source: () => AccountSource | undefined;
  /** Revokes a key as `keys revoke` does: the deny-list file, then Redis. Throws an `AdminError` when it cannot. */
  readonly revoke: (keyId: string) => Promise<Revoked>;
  /** Of `keyIds`, those the deny-lists name, with the time each is refused from (ms). */
  readonly revocations: (keyIds: readonly string[]) => Promise<ReadonlyMap<string, number>>;
  /** The settings in force and the plans, secrets left out. */
  readonly settings: () => unknown;
  /** The rate-limit decisions so far, by plan and decision (the metrics' counters). */
  readonly decisions: () => Promise<readonly { readonly plan: string; readonly decision: string; readonly count: number }[]>;
  /** What a candidate plans file is checked against, as the gateway checks its own. */
  readonly plansContext: () => PlansContext;
  /** The audit log: one line per action. */
  readonly logger: Logger;
  readonly now: () => number;
}

type Handler = (request: AdminRequest) => Promise<AdminAnswer>;

/** The largest candidate plans file `POST /admin/plans/check` reads. */
export const MAX_PLANS_BYTES = 8 * 1024 * 1024;

const LIMITS_OFF = adminError('limits_off');

/**
 * The admin API's endpoints, each a handler by method (see docs/operating.md, "Admin API"):
 * listed by their path's shape, `:name` standing for one segment.
 */
export function adminRoutes(deps: RoutesDeps): readonly { readonly path: readonly string[]; readonly methods: Readonly<Record<string, Handler>> }[] {
  const withSource = (handle: (source: AccountSource, request: AdminRequest) => Promise<AdminAnswer>): Handler => {
    return async (request) => {
      const source = deps.source();
      return source === undefined ? LIMITS_OFF : handle(source, request);
    };
  };
  const audit = (request: AdminRequest, action: string, target: Record<string, unknown>, outcome: string) =>
    deps.logger.info({ audit: true, admin: request.who, ip: request.ip, action, ...target, outcome }, `admin ${action}`);

  return [
    {
      path: ['accounts'],
      methods: {
        GET: withSource(async (source, request) => {
          const page = await source.page(pageQuery(request.query));
          // Its next request is refused when the key it used last is revoked: the list says so, as the account's page does.
          const revoked = await deps.revocations([...new Set(page.accounts.map((account) => account.lastKey))]);
          const at = deps.now();
          return { kind: 'json', body: { ...page, accounts: page.accounts.map((account) => withRevocation(account, revoked, at)) } };
        }),
      },
    },
    {
      path: ['accounts', ':account'],
      methods: {
        GET: withSource(async (source, request) => {
          const found = await source.account(accountName(pathId(request, 1, 'account')));
          if (found === undefined) return adminError('account_not_found');
          const revoked = await deps.revocations(found.keys.map((key) => key.id));
          const at = deps.now();
          const keys = found.keys.map((key) => {
            const from = revoked.get(key.id);
            return { ...key, revoked: from !== undefined && from <= at, refusedFrom: from === undefined || from === 0 ? null : Math.ceil(from / 1000) };
          });
          return { kind: 'json', body: { day: found.day, ...withRevocation(found.report, revoked, at), keys } };
        }),
      },
    },
    {
      path: ['keys', ':key', 'revoke'],
      methods: {
        POST: withSource(async (source, request) => {
          const id = keyId(pathId(request, 1, 'key'));
          const account = await source.accountOfKey(id);
          if (account === undefined) {
            audit(request, 'revoke', { keyId: id }, 'key_not_found');
            return adminError('key_not_found');
          }
          try {
            const { refusedFrom, already } = await deps.revoke(id);
            audit(request, 'revoke', { keyId: id, account }, already ? 'already revoked' : 'revoked');
            return { kind: 'json', body: { keyId: id, account, refusedFrom: Math.ceil(Date.parse(refusedFrom) / 1000), already } };
          } catch (error) {
            audit(request, 'revoke', { keyId: id, account }, `failed: ${(error as Error).message}`);
            throw error;
          }
        }),
      },
    },
    {
      path: ['bans', ':key'],
      methods: {
        DELETE: withSource(async (source, request) => {
          const id = keyId(pathId(request, 1, 'key'));
          const lifted = await source.liftBan(id);
          audit(request, 'lift ban', { keyId: id, account: lifted?.account }, lifted === undefined ? 'key_not_found' : lifted.lifted ? 'lifted' : 'not banned');
          if (lifted === undefined) return adminError('key_not_found');
          return { kind: 'json', body: { keyId: id, account: lifted.account, lifted: lifted.lifted } };
        }),
      },
    },
    {
      path: ['billing'],
      methods: { GET: withSource(async (source, request) => (onlyParameters(request.query, []), { kind: 'json', body: await source.billing() })) },
    },
    {
      path: ['billing.csv'],
      methods: {
        GET: withSource(async (source, request) => {
          onlyParameters(request.query, []);
          const report = await source.billing();
          const headers = { 'content-disposition': `attachment; filename="billing-${report.month}.csv"` };
          return { kind: 'text', contentType: 'text/csv; charset=utf-8; header=present', body: billingCsv(report), headers };
        }),
      },
    },
    {
      path: ['config'],
      methods: { GET: async (request) => (onlyParameters(request.query, []), { kind: 'json', body: deps.settings() }) },
    },
    {
      path: ['decisions'],
      methods: { GET: async (request) => (onlyParameters(request.query, []), { kind: 'json', body: { at: deps.now(), decisions: await deps.decisions() } }) },
    },
    {
      path: ['plans', 'check'],
      methods: {
        POST: withSource(async (source, request) => {
          onlyParameters(request.query, []);
          const type = request.req.headers['content-type'] ?? '';
          if (!/^application\/json\s*(;|$)/i.test(type)) return adminError('unsupported_media_type');
          let body: Buffer | undefined;
          try {
            body = await readBody(request.req, MAX_PLANS_BYTES);
          } catch (error) {
            if (error instanceof BodyTooLargeError) return adminError('payload_too_large', `A candidate plans file is at most ${MAX_PLANS_BYTES} bytes.`);
            throw error;
          }
          const checked = checkPlansText(body?.toString('utf8') ?? '', deps.plansContext());
          if ('problems' in checked) {
            audit(request, 'check plans', {}, 'invalid');
            return { kind: 'json', body: { valid: false, problems: checked.problems } };
          }
          const result = await source.check(checked.plans);
          audit(request, 'check plans', {}, `${result.refused.length} of ${result.checked} accounts refused`);
          return { kind: 'json', body: { valid: true, ...result } };
        }),
      },
    },
  ];
}
