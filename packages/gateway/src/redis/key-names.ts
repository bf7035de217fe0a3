/** Redis key names of the gateway, under one prefix. */
export function redisKeyNames(prefix: string) {
  return {
    /** SET of revoked key ids (`jti`). */
    revoked: `${prefix}:revoked`,
  };
}
