/**
 * The schemas the gateway adds to any backend's document: its error bodies (the Error body and
 * problem details) and what `GET /usage` answers. Named as the pets core names them.
 */
import { errorBody } from '../errors.js';
import { problemDetails } from '../http/problem-details.js';

export type Json = Record<string, unknown>;

export const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

/** What `GET /usage` answers a pro account whose createPet costs 5 and has a ceiling for all callers. */
const USAGE_EXAMPLE = {
  plan: 'pro',
  windows: {
    minute: { limit: 300, remaining: 287, resetAt: 1767225660 },
    day: { limit: 10000, remaining: 9412, resetAt: 1767304800 },
  },
  operations: { createPet: { minute: { limit: 1000, remaining: 968, resetAt: 1767225660 } } },
  costs: { createPet: 5 },
  ban: null,
  keyExpiresAt: 1798761600,
};

export const SCHEMAS: Record<string, Json> = {
  Error: {
    type: 'object',
    description: 'The body of every error answer.',
    properties: {
      code: { type: 'string', description: 'A stable snake_case code: match on it.' },
      message: { type: 'string', description: 'A sentence for people; it may change.' },
      status: { type: 'integer', description: 'The HTTP status of the answer.' },
    },
    required: ['code', 'message', 'status'],
    examples: [errorBody('rate_limited')],
  },
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details: what the gateway answers its own errors with when the request has `Accept: application/problem+json`.',
    properties: {
      type: { type: 'string', format: 'uri-reference', description: 'The problem type; `about:blank` when there is no more specific one.' },
      title: { type: 'string', description: 'A short summary of the problem type.' },
      status: { type: 'integer', description: 'The HTTP status of the answer.' },
      detail: { type: 'string', description: 'What happened to this request.' },
      code: { type: 'string', description: 'The same stable code as in the Error body.' },
      'violated-policies': {
        type: 'array',
        items: { type: 'string' },
        description: 'On `quota-exceeded`: the windows that refused, as `RateLimit-Policy` names them.',
      },
    },
    required: ['type', 'title', 'status', 'detail', 'code'],
    examples: [problemDetails('rate_limited', undefined, ['minute'])],
  },
  UsageWindow: {
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 0, description: "Units the window admits: a request spends its operation's cost, 1 unless `costs` names it." },
      remaining: { type: 'integer', minimum: 0, description: 'Units left in it now.' },
      resetAt: {
        type: 'integer',
        minimum: 0,
        description: 'Unix time (seconds) at which it admits again: when the oldest counted request leaves it, or, for `month`, when the month ends.',
      },
    },
    required: ['limit', 'remaining', 'resetAt'],
    examples: [{ limit: 300, remaining: 287, resetAt: 1767225660 }],
  },
  Usage: {
    type: 'object',
    description: "The caller's plan and what is left of it, computed as for a request but charging nothing.",
    properties: {
      plan: {
        type: 'string',
        description:
          "The plan of the account: the key's (a plan of the operator's plans file; the shipped ones are `free`, `pro`, `business`, `enterprise`), or the one the operator gave the account.",
        examples: ['pro'],
      },
      windows: {
        type: 'object',
        description: 'Each window of the plan by name: `minute`, `day`, and `month` for a monthly quota.',
        additionalProperties: { $ref: '#/components/schemas/UsageWindow' },
        examples: [USAGE_EXAMPLE.windows],
      },
      operations: {
        type: 'object',
        description: 'The ceiling of each operation that has one, shared by every caller: its windows by name. Absent without ceilings.',
        additionalProperties: {
          type: 'object',
          additionalProperties: { $ref: '#/components/schemas/UsageWindow' },
          examples: [USAGE_EXAMPLE.operations.createPet],
        },
        examples: [USAGE_EXAMPLE.operations],
      },
      costs: {
        type: 'object',
        description: 'The units each operation spends on this plan, where it is not 1, by operationId. Absent when every operation costs 1.',
        additionalProperties: { type: 'integer', minimum: 1 },
        examples: [USAGE_EXAMPLE.costs],
      },
      shadow: {
        type: 'boolean',
        const: true,
        description: 'Present when the plan is computed but not enforced for this account: a request it would refuse is admitted.',
      },
      ban: {
        description: 'The ban of the key, while it is banned; `null` otherwise.',
        oneOf: [
          { type: 'null' },
          { type: 'object', properties: { until: { type: 'integer', description: 'Unix time (seconds) at which the ban ends.' } }, required: ['until'] },
        ],
      },
      keyExpiresAt: { type: ['integer', 'null'], description: 'Unix time (seconds) at which the key expires; `null` when it does not.' },
    },
    required: ['plan', 'windows', 'ban', 'keyExpiresAt'],
    examples: [USAGE_EXAMPLE],
  },
};
