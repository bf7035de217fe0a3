import { STATUS_CODES } from 'node:http';
import { ERRORS, type ErrorCode } from '../errors.js';

/** The problem types of draft-ietf-httpapi-ratelimit-headers-11, section 5 (registered with IANA). */
const IANA = 'https://iana.org/assignments/http-problem-types';
export const PROBLEM_TYPES = {
  quotaExceeded: { type: `${IANA}#quota-exceeded`, title: 'Request cannot be satisfied as assigned quota has been exceeded' },
  temporaryReducedCapacity: { type: `${IANA}#temporary-reduced-capacity`, title: 'Request cannot be satisfied due to temporary server capacity constraints' },
  abnormalUsageDetected: { type: `${IANA}#abnormal-usage-detected`, title: 'Request not satisfied due to detection of abnormal request pattern' },
  /**
   * The gateway's own (a `tag:` URI, RFC 9457 section 4, for a type that needs no page): the
   * budget per client address for requests without a valid key or to no operation, so that a
   * client with a good key does not take it for its plan's limit.
   */
  anonymousBudgetExceeded: {
    type: 'tag:animal-store,2026:anonymous-budget-exceeded',
    title: 'Too many requests from this address without a valid API key or to no operation',
  },
} as const;

/** RFC 9457 problem details, with the Error body's `code` as an extension member. */
export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ErrorCode;
  /** The draft's extension: the policies whose quota was exceeded (RateLimit-Policy names). */
  readonly 'violated-policies'?: readonly string[];
}

/**
 * The problem details of a gateway error: the draft's types for 429 (`quota-exceeded`, and
 * `abnormal-usage-detected` for a banned key; the gateway's own for the per-address budget of
 * requests without a valid key or operation) and 503 (`temporary-reduced-capacity`); every other
 * code is `about:blank` with its status's reason phrase as the title, as RFC 9457 asks.
 */
export function problemDetails(code: ErrorCode, message?: string, violatedPolicies?: readonly string[]): ProblemDetails {
  const { status } = ERRORS[code];
  const known =
    code === 'rate_limited' || code === 'quota_exhausted' || code === 'operation_limited'
      ? PROBLEM_TYPES.quotaExceeded
      : code === 'anonymous_rate_limited'
        ? PROBLEM_TYPES.anonymousBudgetExceeded
        : code === 'key_banned'
          ? PROBLEM_TYPES.abnormalUsageDetected
          : status === 503
            ? PROBLEM_TYPES.temporaryReducedCapacity
            : undefined;
  const problem: ProblemDetails = {
    type: known?.type ?? 'about:blank',
    title: known?.title ?? STATUS_CODES[status] ?? 'Error',
    status,
    detail: message ?? ERRORS[code].message,
    code,
  };
  return (known === PROBLEM_TYPES.quotaExceeded || known === PROBLEM_TYPES.anonymousBudgetExceeded) &&
    violatedPolicies !== undefined &&
    violatedPolicies.length > 0
    ? { ...problem, 'violated-policies': violatedPolicies }
    : problem;
}

/**
 * True when the client asked for problem details: `application/problem+json` named in `Accept`
 * (not through a wildcard) with a weight above zero and at least that of `application/json`.
 * Without it, errors keep the `{code, message, status}` body.
 */
export function wantsProblemDetails(accept: string | undefined): boolean {
  if (accept === undefined || !accept.toLowerCase().includes('application/problem+json')) return false;
  const ranges = accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return { type, weight: Number.isFinite(weight) ? weight : 0 };
  });
  const weightOf = (type: string): number => {
    const [major] = type.split('/');
    const exact = ranges.find((range) => range.type === type);
    const partial = ranges.find((range) => range.type === `${major}/*`);
    const any = ranges.find((range) => range.type === '*/*');
    return (exact ?? partial ?? any)?.weight ?? 0;
  };
  const problem = ranges.find((range) => range.type === 'application/problem+json')?.weight ?? 0;
  return problem > 0 && problem >= weightOf('application/json');
}
