/** What the gateway knows of one operation of the interface, taken from the OpenAPI document. */
export interface Operation {
  readonly operationId: string;
  readonly method: string;
  /** The full path template, base path included: `/v1/pets/{petId}`. */
  readonly template: string;
  /** The public base path in front of the document's path (`/v1`; empty for none). */
  readonly basePath: string;
  /** Literal segments as strings, parameters as `null`. */
  readonly segments: readonly (string | null)[];
  /** True when the document requires a credential (operation `security`, else the document's). */
  readonly requiresAuth: boolean;
  readonly deprecation: Deprecation | undefined;
  /** `gateway` for an operation the gateway answers itself (`GET /v1/usage`), never forwarded. */
  readonly answeredBy?: 'gateway';
}

export interface Deprecation {
  /** When the operation was deprecated (`x-deprecated-at`), for the `Deprecation` header. */
  readonly deprecatedAt: Date | undefined;
  /** When it is removed (`x-sunset`), for `Sunset` and the 410 after it. */
  readonly sunset: Date | undefined;
  /** The replacement (`x-successor-version`), for `Link: <…>; rel="successor-version"`. */
  readonly successor: string | undefined;
  /** Why and how to migrate (the operation's `description`). */
  readonly note: string | undefined;
}
