import { parseArgs } from 'node:util';
import { isHeaderSafe, isJwtShaped, type CustomLimits } from '../auth/index.js';
import { CLI_ENV } from '../config/cli-env.js';
import { dirname } from 'node:path';
import { initKeyring, issueKey, keyringFiles, listKeys, rerollKey, retireKey, revokeKey, rotateKey, verifiedKeyIdOf } from '../keyring/index.js';
import { denyInRedis, revokedReach } from './deny-in-redis.js';
import { keyTable } from './key-table.js';
import { checkPlanName } from './plan-names.js';
import { durationOption, UsageError } from './usage-error.js';
import { USAGE } from './usage.js';
import { printable } from './printable.js';

/** What a key without `--ttl` is: said when one is issued, as `never` in `list`. */
const NEVER_EXPIRES_MEANS = 'it works until it is revoked or its kid is retired; --ttl 90d gives one that ends';
const NEVER_EXPIRES = `this key never expires (no --ttl): ${NEVER_EXPIRES_MEANS}`;

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
      const plan = checkPlanName(values.plan, env.PLANS_FILE);
      if (values.sub === undefined || values.sub === '') throw new UsageError('--sub (the account) is required');
      // The gateway refuses such a key (401): it could not pass the account on in X-Api-Subject.
      if (!isHeaderSafe(values.sub)) {
        throw new UsageError(
          '--sub may hold only visible ASCII and inner spaces (U+0020-U+007E, no leading or trailing space): it travels to the backend in a header',
        );
      }
      const ttlMs = durationOption('ttl', values.ttl);
      const minute = positiveInt('minute', values.minute);
      const day = positiveInt('day', values.day);
      const limits: CustomLimits | undefined = minute === undefined && day === undefined ? undefined : { minute, day };
      const { token } = await issueKey(dir, { plan, sub: values.sub, ttlMs, limits });
      print(`${token}\n`);
      if (ttlMs === undefined) say(`keys: ${NEVER_EXPIRES}\n`);
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
      const graceMs = durationOption('grace', values.grace, true) as number;
      const ttlMs = durationOption('ttl', values.ttl);
      // The new key names the old one's plan: one the gateway's plans file no longer has would be refused.
      const old = listKeys(dir).find((key) => key.jti === argument);
      if (old !== undefined) checkPlanName(old.plan, env.PLANS_FILE, `the key's plan (${old.plan}) is not`);
      const { token, record, refusedFrom, revokedBefore } = await rerollKey(dir, argument, { graceMs, ttlMs, force: values.force });
      print(`${token}\n`);
      const file = keyringFiles(dir).revoked;
      const was = revokedBefore === undefined ? '' : `, revoked on ${revokedBefore},`;
      const forever = record.expiresAt === undefined ? `keys: the new key never expires, as the old one did not (no --ttl): ${NEVER_EXPIRES_MEANS}\n` : '';
      const done = `rerolled ${argument}${was} as ${record.jti} (account ${record.sub}, plan ${record.plan}); ${argument} is refused from ${refusedFrom} in ${file}`;
      if (env.REDIS_URL === undefined) {
        say(`${done}, by every gateway that reads this file (REVOCATIONS_FILE)\n${forever}`);
        return;
      }
      const reached = await denyInRedis(env, argument, Date.parse(refusedFrom), done);
      say(`${done} and in Redis${reached === undefined ? '' : `: ${revokedReach(reached, env.REDIS_CLUSTER)}`}\n${forever}`);
      return;
    }
    case 'list': {
      const keys = listKeys(dir);
      if (values.json) {
        // A key without an expiry says so (`null`), rather than leaving the field out.
        print(
          `${JSON.stringify(
            keys.map((key) => ({ ...key, expiresAt: key.expiresAt ?? null })),
            null,
            2,
          )}\n`,
        );
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
