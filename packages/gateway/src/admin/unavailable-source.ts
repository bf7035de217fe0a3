import { AdminError } from './admin-errors.js';
import type { AccountSource } from './admin-routes.js';
import { InvalidCursorError } from './ledger/index.js';

/**
 * `source` read from a store that may not answer (Redis): a failure of it is `503
 * limits_unavailable` naming `where` and why, as a limit that cannot be asked is `503` on the API.
 * A cursor it does not know stays a `400`.
 */
export function unavailableWhenFailing(source: AccountSource, where: string): AccountSource {
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        if (error instanceof InvalidCursorError || error instanceof AdminError) throw error;
        throw new AdminError('limits_unavailable', `${where} did not answer: ${(error as Error).message}.`);
      }
    };
  return {
    page: guard(source.page),
    account: guard(source.account),
    billing: guard(source.billing),
    check: guard(source.check),
    liftBan: guard(source.liftBan),
    accountOfKey: guard(source.accountOfKey),
  };
}
