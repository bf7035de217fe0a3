export { createClient } from './create-client.js';
export type { AnimalStoreClient, CallOptions, ClientOptions, CreateOptions, ListOptions, PetPage } from './client-types.js';
export { ApiError, KNOWN_ERROR_CODES, type ErrorCode, type KnownErrorCode } from './api-error.js';
export type { DeprecationNotice, RateLimitState } from './response-headers.js';
export type { RetryNotice } from './transport.js';
export type { ErrorBody, NewPet, Pet, PetStatus, Problem, Usage, UsageWindow } from './types.js';
export type { components, operations, paths } from './generated/interface.js';
