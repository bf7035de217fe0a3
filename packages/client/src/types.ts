import type { components } from './generated/interface.js';

/** A pet as the service returns it (generated from the interface document). */
export type Pet = components['schemas']['Pet'];
/** What a client sends to create a pet. */
export type NewPet = components['schemas']['NewPet'];
export type PetStatus = components['schemas']['PetStatus'];
/** The body of every error answer. */
export type ErrorBody = components['schemas']['Error'];

/** `GET /v1/usage`: the caller's plan and what is left of it; asking charges nothing. */
export type Usage = components['schemas']['Usage'];
/** One window of the plan in `Usage`. */
export type UsageWindow = components['schemas']['UsageWindow'];
/** RFC 9457 problem details, the gateway's errors on `Accept: application/problem+json`. */
export type Problem = components['schemas']['Problem'];
