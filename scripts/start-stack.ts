// `npm start`: the pets core and the gateway in front of it, with embedded defaults (memory store,
// in-process limits, no Redis) and an ephemeral keyring with one demo key per plan, and the
// gateway's admin listener (metrics, the admin API and console) with a demo admin token. Prints
// the URLs, the keys and the token; Ctrl-C stops both cleanly and deletes the keyring.
//
// Environment: PORT (gateway, 8080), CORE_PORT (core, 8081), METRICS_PORT (the gateway's admin
// listener, 9464, always on loopback), HOST (both); everything else is passed through to both
// processes, so LOG_LEVEL=warn npm start quiets them.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { DEFAULT_PLANS_FILE, initKeyring, issueKey, keyringFiles, readPlansFile } from '@animal-store/gateway';
import { exitWithProblems, nodeSupport } from '@animal-store/http-kit';
import { portFor, stackPorts } from './stack-ports.js';

const CORE_MAIN = fileURLToPath(import.meta.resolve('@animal-store/core/main'));
const GATEWAY_MAIN = fileURLToPath(import.meta.resolve('@animal-store/gateway/main'));

const node = nodeSupport(process.version);
if (!node.supported) process.stderr.write(`npm start: warning: ${node.message}\n`);

const ports = stackPorts(process.env);
if ('problems' in ports) exitWithProblems('npm start', ports.problems);

const host = process.env.HOST ?? '127.0.0.1';
const keysDir = mkdtempSync(join(tmpdir(), 'animal-store-keys-'));
/** The services started, or starting. */
const children: ChildProcess[] = [];
let stopping = false;
// The plans: a copy of the shipped ones beside the keyring, to edit while the stack runs (the
// gateway reads a changed file at the next request), gone with it; or the operator's PLANS_FILE.
const plansFile = process.env.PLANS_FILE ?? join(keysDir, 'plans.json');

/** A throwaway keyring and one key per plan of the plans file in use (the enterprise one with limits signed in). */
async function demoKeys(): Promise<{ plan: string; jti: string; token: string }[]> {
  await initKeyring(keysDir, { issuer: 'animal-store', audience: 'animal-store-production' });
  const keys = [];
  for (const plan of Object.keys(readPlansFile(process.env.PLANS_FILE ?? DEFAULT_PLANS_FILE).plans)) {
    const limits = plan === 'enterprise' ? { minute: 5000, day: 2_000_000 } : undefined;
    const { token, record } = await issueKey(keysDir, { plan, sub: `demo-${plan}`, ttlMs: 86_400_000, limits });
    keys.push({ plan, jti: record.jti, token });
  }
  return keys;
}

/** `value` as one shell word: as it is when it is safe, else single-quoted. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The demo admin token, in a token file of the throwaway keyring (named `demo` in the audit log).
 * 24 random bytes as base64url: the 32 characters an admin token needs at least.
 */
function demoAdminToken(): { token: string; file: string } {
  const token = randomBytes(24).toString('base64url');
  const file = join(keysDir, 'admin-tokens');
  writeFileSync(file, `demo:${token}\n`, { mode: 0o600 });
  return { token, file };
}

/**
 * The one line that sets what the documentation's examples use: `KEY` (the pro key, as the README
 * says), `FREE_KEY`, `ENTERPRISE_KEY`, `KEYS_DIR`, `PLANS_FILE` and `ADMIN_TOKEN`, so they need
 * not be copied one by one.
 */
function exportLine(keys: readonly { plan: string; token: string }[], adminToken: string): string {
  const token = (plan: string) => keys.find((key) => key.plan === plan)?.token ?? '';
  const values = {
    KEY: token('pro'),
    FREE_KEY: token('free'),
    ENTERPRISE_KEY: token('enterprise'),
    KEYS_DIR: keysDir,
    PLANS_FILE: plansFile,
    ADMIN_TOKEN: adminToken,
  };
  return `export ${Object.entries(values)
    .map(([name, value]) => `${name}=${shellWord(value)}`)
    .join(' ')}`;
}

/** Thrown where the stack is being stopped (a signal came while it started): nothing more is started. */
class Stopping extends Error {}

/**
 * Starts a service on `port` and resolves once its /healthz answers (whatever its LOG_LEVEL). The
 * child is one of `children` from its spawn on: a signal while it starts stops it too.
 */
async function launch(name: string, entry: string, port: number, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  if (stopping) throw new Stopping();
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, HOST: host, PORT: String(port), ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (stopping) throw new Stopping();
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${name} did not answer ${url}/healthz in time`);
    const healthy = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
      (res) => res.ok,
      () => false,
    );
    if (healthy) return { child, url };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Whatever way this process ends, the demo keyring (a private key, the admin token) goes with it.
process.on('exit', () => rmSync(keysDir, { recursive: true, force: true }));

/**
 * Stops the stack: deletes the keyring, sends SIGTERM to every service started (or starting), and
 * exits with `code` once they have exited. Run once, by a signal to this process (SIGINT,
 * SIGTERM, SIGHUP: npm's own pid reaches it, the script being `exec`ed) or a failure.
 */
function stopAll(code: number): void {
  if (stopping) return;
  stopping = true;
  rmSync(keysDir, { recursive: true, force: true });
  const alive = children.filter((child) => child.exitCode === null && child.signalCode === null);
  let left = alive.length;
  if (left === 0) process.exit(code);
  for (const child of alive) {
    child.once('exit', () => {
      if (--left === 0) process.exit(code);
    });
    child.kill('SIGTERM');
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stopAll(0));

try {
  const corePort = await portFor('CORE_PORT', ports.core, host);
  const gatewayPort = await portFor('PORT', ports.gateway, host);
  const adminPort = await portFor('METRICS_PORT', ports.admin, host);
  const core = await launch('core', CORE_MAIN, corePort, {});
  const keys = await demoKeys();
  const files = keyringFiles(keysDir);
  if (process.env.PLANS_FILE === undefined) copyFileSync(DEFAULT_PLANS_FILE, plansFile);
  const admin = demoAdminToken();
  const gateway = await launch('gateway', GATEWAY_MAIN, gatewayPort, {
    // The admin listener stays on loopback whatever HOST says (METRICS_HOST's default).
    METRICS_PORT: String(adminPort),
    ADMIN_TOKEN_FILE: admin.file,
    PLANS_FILE: plansFile,
    UPSTREAM_URL: core.url,
    JWKS_FILE: files.jwks,
    REVOCATIONS_FILE: files.revoked,
    KEY_ISSUER: 'animal-store',
    KEY_AUDIENCE: 'animal-store-production',
  });
  for (const child of children) {
    child.once('exit', (code) => {
      if (stopping) return;
      process.stderr.write(`a service exited unexpectedly (code ${code}); stopping the other\n`);
      stopAll(1);
    });
  }
  process.stdout.write(
    [
      '',
      `  gateway  ${gateway.url}   (the API: ${gateway.url}/v1/pets)`,
      `  core     ${core.url}   (behind the gateway)`,
      `  admin    http://127.0.0.1:${adminPort}/admin   (the admin console and API; the token is ADMIN_TOKEN below)`,
      '',
      '  demo API keys (valid 24 h, gone when this stops):',
      ...keys.map((key) => `    ${key.plan.padEnd(10)} ${key.token}`),
      '',
      '  for the examples of the README and docs/ (KEY is the pro key there), paste in another terminal:',
      `  ${exportLine(keys, admin.token)}`,
      `  curl -s ${gateway.url}/v1/pets -H "Authorization: Bearer $KEY"`,
      `  revoke one: KEYS_DIR=${shellWord(keysDir)} npm run keys -- revoke ${keys[0]?.jti}`,
      '  Ctrl-C stops both.',
      '',
      '',
    ].join('\n'),
  );
} catch (error) {
  // A signal stopped the start: what it started is being stopped, and there is nothing to say.
  if (!(error instanceof Stopping)) {
    process.stderr.write(`npm start: ${(error as Error).message}\n`);
    stopAll(1);
  }
}
