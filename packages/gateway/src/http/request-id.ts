import { randomUUID } from 'node:crypto';

const WELL_FORMED = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The client's `X-Request-Id` when it is well formed (it ends up in logs and upstream), else a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && WELL_FORMED.test(header) ? header : randomUUID();
}
