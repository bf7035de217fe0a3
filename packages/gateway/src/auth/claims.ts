import { z } from 'zod';

export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** The JWS `typ` of an API key: it cannot be confused with an ID token or another JWT. */
export const API_KEY_TYP = 'apikey+jwt';

/** RFC 9651 integers (RateLimit-Policy's `q`) have at most 15 digits. */
const positive = z.int().min(1).max(999_999_999_999_999);

/** Per-key limits an operator may sign into an enterprise key. */
export const CustomLimits = z.strictObject({ minute: positive.optional(), day: positive.optional() });
export type CustomLimits = z.infer<typeof CustomLimits>;

/** The claims of an API key past signature, `typ`, `iss`, `aud` and time checks. */
export const ApiKeyClaims = z.looseObject({
  sub: z.string().min(1).max(256),
  jti: z.string().min(1).max(128),
  plan: z.enum(PLANS),
  iat: z.number(),
  exp: z.number().optional(),
  limits: CustomLimits.optional(),
});

/** Who a verified key says the caller is. */
export interface Identity {
  /** The account: rate limits apply to it. */
  readonly subject: string;
  /** The key id: revocation and bans apply to it. */
  readonly keyId: string;
  readonly plan: Plan;
  /** Expiry in ms since the epoch, if the key has one. */
  readonly expiresAt: number | undefined;
  /** Custom limits, for enterprise keys only (ignored on any other plan). */
  readonly limits: CustomLimits | undefined;
}

/** The identity in `payload`, or `undefined` when the claims are not those of an API key. */
export function identityOf(payload: unknown): Identity | undefined {
  const parsed = ApiKeyClaims.safeParse(payload);
  if (!parsed.success) return undefined;
  const claims = parsed.data;
  return {
    subject: claims.sub,
    keyId: claims.jti,
    plan: claims.plan,
    expiresAt: claims.exp === undefined ? undefined : claims.exp * 1000,
    limits: claims.plan === 'enterprise' ? claims.limits : undefined,
  };
}
