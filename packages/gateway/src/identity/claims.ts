import { z } from 'zod';

/**
 * A plan's name, as a key's `plan` claim and the plans file's entries spell it: any name of 1 to 64
 * characters that travels in a header as it is (`X-Api-Plan`, see `isHeaderSafe`). Which names
 * exist is the plans file's to say, not this one's.
 */
export const PlanName = z.string().min(1).max(64).refine(isHeaderSafe, 'may hold only visible ASCII and inner spaces (it travels in X-Api-Plan)');
export type PlanName = string;

/** The JWS `typ` of an API key: it cannot be confused with an ID token or another JWT. */
export const API_KEY_TYP = 'apikey+jwt';

/** RFC 9651 integers (RateLimit-Policy's `q`) have at most 15 digits. */
const positive = z.int().min(1).max(999_999_999_999_999);

/** Per-key limits an operator may sign into a key, of any plan. */
export const CustomLimits = z.strictObject({ minute: positive.optional(), day: positive.optional() });
export type CustomLimits = z.infer<typeof CustomLimits>;

/** The claims of an API key past signature, `typ`, `iss`, `aud` and time checks. */
export const ApiKeyClaims = z.looseObject({
  sub: z.string().min(1).max(256),
  jti: z.string().min(1).max(128),
  plan: PlanName,
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
  /** The plan the key names: the gateway refuses it when its plans file has no such plan. */
  readonly plan: PlanName;
  /** Expiry in ms since the epoch, if the key has one. */
  readonly expiresAt: number | undefined;
  /** Limits signed into the key: each window given wins over its plan's (the plans file's account terms win over both). */
  readonly limits: CustomLimits | undefined;
}

/**
 * True when `value` travels in an HTTP header exactly as it is: visible ASCII (U+0021–U+007E) and
 * inner spaces. Anything else is refused, never encoded: a code point above U+00FF, a control
 * character or DEL cannot be sent at all (the proxy engines refuse the request), Latin-1 arrives as
 * bytes a backend decodes in its own way, and a header parser strips a leading or trailing space
 * (`"alice "` would reach the backend as `"alice"`, another account). The gateway refuses a key
 * whose `sub` or `jti` fails it (401), and the keys CLI refuses to issue one.
 */
export function isHeaderSafe(value: string): boolean {
  const last = value.length - 1;
  if (last < 0 || value.charCodeAt(0) === 0x20 || value.charCodeAt(last) === 0x20) return false;
  for (let i = 0; i <= last; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

/** The claim of `identity` that cannot travel in the upstream's identity headers, if one cannot (the plan always can: `PlanName`). */
export function headerUnsafeClaim(identity: Identity): 'sub' | 'jti' | undefined {
  if (!isHeaderSafe(identity.subject)) return 'sub';
  if (!isHeaderSafe(identity.keyId)) return 'jti';
  return undefined;
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
    limits: claims.limits,
  };
}
