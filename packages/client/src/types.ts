import type { components } from './generated/interface.js';

/** A pet as the service returns it (generated from the interface document). */
export type Pet = components['schemas']['Pet'];
/** What a client sends to create a pet. */
export type NewPet = components['schemas']['NewPet'];
export type PetStatus = components['schemas']['PetStatus'];
/** The body of every error answer. */
export type ErrorBody = components['schemas']['Error'];

/** One window of the caller's plan, as `GET /v1/usage` reports it. */
export interface UsageWindow {
  readonly limit: number;
  readonly remaining: number;
  /** Unix time, in seconds, at which the window admits again. */
  readonly resetAt: number;
}

/** `GET /v1/usage`: the caller's plan and what is left of it; asking charges nothing. */
export interface Usage {
  readonly plan: string;
  readonly windows: Readonly<Record<string, UsageWindow>>;
  /** The key's ban, when it is banned: until when (Unix seconds). */
  readonly ban: { readonly until: number } | null;
  /** When the key expires (Unix seconds); `null` when it does not. */
  readonly keyExpiresAt: number | null;
}
