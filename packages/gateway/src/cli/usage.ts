/** `npm run keys -- help`, and what a usage error prints after its reason. */
export const USAGE = `usage: npm run keys -- <command> [options]

  init [--issuer I] [--audience A] [--force]   make a signing key pair (KEYS_DIR, default ./keys)
  issue --plan P --sub S [--ttl D] [--minute N --day N]
                                               sign an API key; prints only the key
  revoke <jti or key>                          deny a key: public/revoked.json, and Redis when
                                               REDIS_URL is set (fails if Redis does not answer);
                                               given the key itself, verifies it against the
                                               keyring first, then takes its id
  reroll <jti> --grace 24h [--ttl D] [--force]
                                               a new key for the same account and plan (printed);
                                               the old key is refused once the grace period is
                                               over (--grace 0: at once), in public/revoked.json
                                               and in Redis when REDIS_URL is set
  list [--json]                                issued keys: id, account, plan, expiry, revoked,
                                               and whether a gateway still accepts each
  rotate                                       new signing kid; old kids keep verifying
  retire <kid>                                 remove a kid: every key it signed stops working
  help                                         this text

--ttl: how long the key works (90d, 12h, 30m, 1y); without it, the key never expires
--plan: a plan of PLANS_FILE (unset: the shipped free, pro, business, enterprise);
--minute/--day: limits signed into the key, which win over its plan's
A gateway reads KEYS_DIR/public/ (JWKS_FILE=.../jwks.json, REVOCATIONS_FILE=.../revoked.json).
In scripts, use npm's --silent so only the key is captured: KEY=$(npm run --silent keys -- issue ...)`;
