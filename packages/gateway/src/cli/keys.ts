import { parseArgs } from 'node:util';
import { CONFIRM_WAIT_MS, createRedisRevoker, isHeaderSafe, isJwtShaped, PLANS, type CustomLimits, type Plan, type RevokedInRedis } from '../auth/index.js';
import { CLI_ENV, type CliEnv } from '../config/cli-env.js';
import { dirname } from 'node:path';
import {
  initKeyring,
  issueKey,
  keyringFiles,
  KeyringError,
  listKeys,
  parseDuration,
  rerollKey,
  retireKey,
  revokeKey,
  rotateKey,
  verifiedKeyIdOf,
} from '../keyring/index.js';
import { createRedisClient, redisKeyNames } from '../redis/index.js';
import { keyTable } from './key-table.js';
import { printable } from './printable.js';

const USAGE = `usage: npm run keys -- <command> [options]

  init [--issuer I] [--audience A] [--force]   make a signing key pair (KEYS_DIR, default ./keys)
  issue --plan P --sub S [--ttl 90d] [--minute N --day N]
                                               sign an API key; prints only the key
  revoke <jti or key>                          deny a key: public/revoked.json, and Redis when
                                               REDIS_URL is set (fails if Redis does not answer);
                                               given the key itself, verifies it against the
                                               keyring first, then takes its id
  reroll <jti> --grace 24h [--ttl 90d]         a new key for the same account and plan (printed);
                                               the old key is refused once the grace period is
                                               over (--grace 0: at once), in public/revoked.json
                                               and in Redis when REDIS_URL is set
  list [--json]                                issued keys: id, account, plan, expiry, revoked,
                                               and whether a gateway still accepts each
  rotate                                       new signing kid; old kids keep verifying
  retire <kid>                                 remove a kid: every key it signed stops working
  help                                         this text

plans: ${PLANS.join(', ')}; --minute/--day are for enterprise keys only
A gateway reads KEYS_DIR/public/ (JWKS_FILE=.../jwks.json, REVOCATIONS_FILE=.../revoked.json).
In scripts, use npm's --silent so only the key is captured: KEY=$(npm run --silent keys -- issue ...)`;

class UsageError extends Error {}

// Everything the CLI prints goes through these: what came from an argument, a file or the
// environment reaches the terminal without its control characters.
const print = (text: string) => process.stdout.write(printable(text, { lines: true }));
const say = (text: string) => process.stderr.write(printable(text, { lines: true }));

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,14}$/.test(value)) throw new UsageError(`--${name} must be a positive integer`);
  return Number(value);
}

async function run(argv: string[]): Promise<void> {
  const loaded = CLI_ENV.load();
  if (!loaded.ok) throw new UsageError(`invalid environment:\n  - ${loaded.problems.join('\n  - ')}`);
  const env = loaded.env;
  // Key ids and kids are base64url and may start with "-": after `revoke` and `retire`, which take
  // no options, every word is an argument.
  const takesIdOnly = argv[0] === 'revoke' || argv[0] === 'retire';
  // `reroll <jti> --grace …`: the id comes first, options after it.
  const idFirst = argv[0] === 'reroll' && argv[1] !== undefined && !argv[1].startsWith('--');
  const { positionals, values } = parseArgs({
    args:
      takesIdOnly && argv[1] !== '--' ? [argv[0] as string, '--', ...argv.slice(1)] : idFirst ? ['reroll', ...argv.slice(2), '--', argv[1] as string] : argv,
    allowPositionals: true,
    strict: true,
    options: {
      issuer: { type: 'string' },
      audience: { type: 'string' },
      force: { type: 'boolean' },
      plan: { type: 'string' },
      sub: { type: 'string' },
      ttl: { type: 'string' },
      minute: { type: 'string' },
      day: { type: 'string' },
      json: { type: 'boolean' },
      grace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true || positionals[0] === 'help') {
    print(`${USAGE}\n`);
    return;
  }
  const [command, argument, ...extra] = positionals;
  // Not repeated: a key pasted with a space in it would print its signature.
  if (extra.length > 0) throw new UsageError(`${extra.length} unexpected argument${extra.length === 1 ? '' : 's'} after "${command}"`);
  const dir = env.KEYS_DIR;

  switch (command) {
    case 'init': {
      const kid = await initKeyring(dir, {
        issuer: values.issuer ?? env.KEY_ISSUER,
        audience: values.audience ?? env.KEY_AUDIENCE,
        force: values.force ?? false,
      });
      const files = keyringFiles(dir);
      say(
        `keyring created in ${dir} (signing kid ${kid}); give ${dirname(files.jwks)} to the gateway (JWKS_FILE=${files.jwks}, REVOCATIONS_FILE=${files.revoked})\n`,
      );
      return;
    }
    case 'issue': {
      if (values.plan === undefined || !(PLANS as readonly string[]).includes(values.plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
      if (values.sub === undefined || values.sub === '') throw new UsageError('--sub (the account) is required');
      // The gateway refuses such a key (401): it could not pass the account on in X-Api-Subject.
      if (!isHeaderSafe(values.sub)) {
        throw new UsageError(
          '--sub may hold only visible ASCII and inner spaces (U+0020-U+007E, no leading or trailing space): it travels to the backend in a header',
        );
      }
      const ttlMs = values.ttl === undefined ? undefined : parseDuration(values.ttl);
      if (values.ttl !== undefined && ttlMs === undefined) throw new UsageError('--ttl must look like 90d, 12h, 30m or 1y');
      const minute = positiveInt('minute', values.minute);
      const day = positiveInt('day', values.day);
      const limits: CustomLimits | undefined = minute === undefined && day === undefined ? undefined : { minute, day };
      if (limits !== undefined && values.plan !== 'enterprise') throw new UsageError('--minute and --day are for the enterprise plan only');
      const { token } = await issueKey(dir, { plan: values.plan as Plan, sub: values.sub, ttlMs, limits });
      print(`${token}\n`);
      return;
    }
    case 'revoke': {
      if (argument === undefined) throw new UsageError('revoke needs the key id (jti) or the key; see: npm run keys -- list');
      // A whole key is verified as this keyring's before its id is used; a bare id must be one the
      // register holds. Neither the argument nor an id read from an unverified key is printed.
      const isKey = argument.includes('.');
      if (isKey && !isJwtShaped(argument)) throw new UsageError('revoke: that is neither a key id (jti) nor an API key; see: npm run keys -- list');
      const jti = isKey ? await verifiedKeyIdOf(dir, argument) : argument;
      const { revokedAt, already } = revokeKey(dir, jti);
      const file = keyringFiles(dir).revoked;
      const done = already ? `${jti} was already revoked (on ${revokedAt}) in ${file}, kept as it was` : `revoked ${jti} in ${file}`;
      if (env.REDIS_URL === undefined) {
        say(
          `${done}: refused from the next request by every gateway that reads this file (REVOCATIONS_FILE).\nGateways that share revocations only through Redis need REDIS_URL set here too.\n`,
        );
        return;
      }
      const reached = await denyInRedis(env, jti, Date.parse(revokedAt), done);
      say(`${done} and in Redis${reached === undefined ? '' : `: ${revokedReach(reached, env.REDIS_CLUSTER)}`}\n`);
      return;
    }
    case 'reroll': {
      if (argument === undefined) throw new UsageError('reroll needs the key id (jti) of the key to replace; see: npm run keys -- list');
      if (values.grace === undefined) throw new UsageError('reroll needs --grace: how long the old key keeps working (0: it stops at once)');
      const graceMs = values.grace === '0' ? 0 : parseDuration(values.grace);
      if (graceMs === undefined) throw new UsageError('--grace must be 0 or look like 30m, 12h, 7d');
      const ttlMs = values.ttl === undefined ? undefined : parseDuration(values.ttl);
      if (values.ttl !== undefined && ttlMs === undefined) throw new UsageError('--ttl must look like 90d, 12h, 30m or 1y');
      const { token, record, refusedFrom } = await rerollKey(dir, argument, { graceMs, ttlMs });
      print(`${token}\n`);
      const file = keyringFiles(dir).revoked;
      const done = `rerolled ${argument} as ${record.jti} (account ${record.sub}, plan ${record.plan}); ${argument} is refused from ${refusedFrom} in ${file}`;
      if (env.REDIS_URL === undefined) {
        say(`${done}, by every gateway that reads this file (REVOCATIONS_FILE)\n`);
        return;
      }
      const reached = await denyInRedis(env, argument, Date.parse(refusedFrom), done);
      say(`${done} and in Redis${reached === undefined ? '' : `: ${revokedReach(reached, env.REDIS_CLUSTER)}`}\n`);
      return;
    }
    case 'list': {
      const keys = listKeys(dir);
      if (values.json) {
        print(`${JSON.stringify(keys, null, 2)}\n`);
        return;
      }
      print(keyTable(keys));
      return;
    }
    case 'rotate': {
      say(`new signing kid ${await rotateKey(dir)}; older kids keep verifying until retired\n`);
      return;
    }
    case 'retire': {
      if (argument === undefined) throw new UsageError('retire needs a kid (see public/jwks.json)');
      retireKey(dir, argument);
      say(`retired ${argument}\n`);
      return;
    }
    default:
      throw new UsageError(command === undefined ? 'a command is required' : `unknown command "${command}"`);
  }
}

/** What a revocation in Redis reached, in words. */
function revokedReach({ told, confirmed }: RevokedInRedis, cluster: boolean): string {
  if (cluster || confirmed >= told) return `refused from the next request by every gateway${cluster ? '' : ` (${confirmed} gateway processes confirmed)`}`;
  return (
    `refused from the next request by every gateway that decides in Redis; ${told - confirmed} of ${told} gateway processes did not confirm ` +
    `within ${CONFIRM_WAIT_MS / 1000} s: those answering from leases refuse it once they read the deny-list again (every 5 s)`
  );
}

/**
 * Revokes `jti` in Redis too, for gateways that share revocations only there: at once (into the
 * deny-list, published so every gateway's copy learns it now and a Redis that dies right after
 * cannot take it along; resolves with how many gateway processes confirmed it), or from a later
 * date (into the hash of pending revocations, which the gateways move into the deny-list when the
 * date comes). `done` says what the file already holds.
 */
async function denyInRedis(env: CliEnv, jti: string, from: number, done: string): Promise<RevokedInRedis | undefined> {
  const redis = createRedisClient(env.REDIS_URL as string, { commandTimeoutMs: 2000, cluster: env.REDIS_CLUSTER });
  try {
    await waitForRedis(redis);
    if (from > Date.now()) {
      await redis.hSet(redisKeyNames(env.REDIS_PREFIX).revokedLater, { [jti]: String(from) });
      return undefined;
    }
    // Every gateway process told says its copy has it: from then on each refuses the key.
    return await createRedisRevoker(redis, env.REDIS_PREFIX, { cluster: env.REDIS_CLUSTER })(jti);
  } catch (error) {
    throw new KeyringError(
      `${done}, but NOT in Redis (${(error as Error).message}): gateways that read only Redis still accept it; run this again once Redis answers`,
    );
  } finally {
    await redis.close();
  }
}

/** The client connects in the background; a one-shot command waits for it (bounded). */
async function waitForRedis(redis: ReturnType<typeof createRedisClient>): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      await redis.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new KeyringError(`Redis is not reachable: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

// A reader that stops early (`keys list | head`) closes the pipe: the output is no longer wanted,
// which is no failure. Exit quietly, as Unix tools do, rather than die with an EPIPE stack.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

run(process.argv.slice(2)).catch((error: unknown) => {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  say(`keys: ${(error as Error).message}\n${usage ? `\n${USAGE}\n` : ''}`);
  process.exit(usage ? 2 : 1);
});
