// The services as production runs them: `npm run build` compiles them, and `npm run core` and
// `npm run gateway` run the result on plain node, as the images do (test/compose.test.ts holds
// their CMD to the same `npm start`). Node's type stripping is off in every process here
// (NODE_OPTIONS, which workers inherit), so a TypeScript file loaded by mistake stops the service
// instead of running quietly, and the processes' command lines show that no loader is in them.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { writeAdminTokens } from '@animal-store/gateway/testing';
import { startService, temporaryDir, type ServiceProcess } from '@animal-store/testkit';

const root = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = ['http-kit', 'core', 'gateway'] as const;
const NO_TYPESCRIPT = { NODE_OPTIONS: '--no-experimental-strip-types' };
/** What npm needs of this environment besides PATH (its cache and configuration). */
const NPM_ENV = { HOME: process.env.HOME ?? root };
/** A cold build on a busy 2-core machine takes tens of seconds. */
const BUILD_TIMEOUT_MS = 240_000;

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** The arguments of a process, from /proc. */
const commandLine = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);

/** Whether a process is still there (signal 0 checks without sending). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The first JSON log line of `service` whose message is `msg`. */
function logLine(service: ServiceProcess, msg: string): Record<string, unknown> | undefined {
  for (const line of service.output().split('\n')) {
    if (line.startsWith('{') && line.includes(`"msg":"${msg}"`)) return JSON.parse(line) as Record<string, unknown>;
  }
  return undefined;
}

/** Polls `check` every 100 ms until it returns true; fails with `what` after `ms`. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not seen within ${ms / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Plans whose anonymous clients get `minute` requests a minute, padded with accounts to over the
 * 64 KiB past which a changed file is read in a worker thread (`OFF_THREAD_BYTES`).
 */
function writeLargePlans(file: string, minute: number): void {
  const shipped = JSON.parse(readFileSync(join(root, 'packages/gateway/plans/plans.json'), 'utf8')) as Record<string, unknown>;
  const accounts = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`account-${i}`, { plan: 'pro' }]));
  writeFileSync(file, JSON.stringify({ ...shipped, anonymous: { minute, day: 100_000 }, accounts }));
}

test('npm run build compiles http-kit, the core and the gateway into their dist/, the tests left out', () => {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS });
  assert.equal(build.status, 0, `${build.stdout}${build.stderr}`);
  for (const pkg of PACKAGES) {
    const source = filesUnder(join(root, 'packages', pkg, 'src'))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.endsWith('.test.ts'))
      .map((file) => file.replace(/\.ts$/, '.js'))
      .sort();
    const built = filesUnder(join(root, 'packages', pkg, 'dist')).filter((file) => file.endsWith('.js'));
    assert.deepEqual(
      source.filter((file) => !built.includes(file)),
      [],
      `${pkg}: every source has its JavaScript`,
    );
    assert.deepEqual(
      built.filter((file) => file.endsWith('.test.js')),
      [],
      `${pkg}: no test is built`,
    );
    // What the code serves from beside itself (the admin console's files): tsc copies none of it.
    const served = filesUnder(join(root, 'packages', pkg, 'src')).filter((file) => !file.endsWith('.ts'));
    for (const file of served) {
      const copy = join(root, 'packages', pkg, 'dist', file);
      assert.ok(existsSync(copy), `${pkg}: dist/${file} is built beside the code that serves it`);
      assert.ok(readFileSync(copy).equals(readFileSync(join(root, 'packages', pkg, 'src', file))), `${pkg}: dist/${file} is src/${file}`);
    }
  }
});

test('the built gateway finds the shipped plans where it did from its sources', async () => {
  // The same path from dist/config/ as from src/config/: dist keeps the layout of src.
  const script = `const { DEFAULT_PLANS_FILE } = await import(${JSON.stringify(pathToFileURL(join(root, 'packages/gateway/dist/index.js')).href)}); console.log(DEFAULT_PLANS_FILE);`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@animal-store/built', '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...NO_TYPESCRIPT },
  });
  const file = stdout.trim();
  assert.equal(file, join(root, 'packages/gateway/plans/plans.json'));
  assert.ok(existsSync(file));
});

test('npm run core and npm run gateway serve from the built code on plain node, and SIGTERM to npm drains them', async (t) => {
  const started: number[] = [];
  // Whatever the outcome, nothing is left running: a service's own pid, should npm not pass the signal on.
  t.after(() => {
    for (const pid of started.filter(alive)) process.kill(pid, 'SIGKILL');
  });
  const command = (service: 'core' | 'gateway') => ['npm', 'run', '--silent', service];
  const core = await startService({
    command: command('core'),
    cwd: root,
    env: { ...NPM_ENV, ...NO_TYPESCRIPT, PORT: '0' },
    group: false,
    timeoutMs: BUILD_TIMEOUT_MS,
  });
  const corePid = Number(logLine(core, 'core listening')?.pid);
  started.push(corePid);
  const plans = join(temporaryDir('built-plans-'), 'plans.json');
  writeLargePlans(plans, 1_000);
  const admin = writeAdminTokens();
  const gateway = await startService({
    command: command('gateway'),
    cwd: root,
    env: {
      ...NPM_ENV,
      ...NO_TYPESCRIPT,
      PORT: '0',
      WORKERS: '2',
      AUTH: 'off',
      METRICS_PORT: '0',
      ADMIN_TOKEN_FILE: admin.file,
      UPSTREAM_URL: core.url,
      PLANS_FILE: plans,
    },
    group: false,
    timeoutMs: BUILD_TIMEOUT_MS,
  });
  const listening = logLine(gateway, 'gateway listening') as { pid: number; pids: number[] };
  started.push(listening.pid);

  // No loader, no TypeScript: node on dist/main.js, the workers forked with the primary's flags.
  for (const [pid, pkg] of [[corePid, 'core'], [listening.pid, 'gateway'], ...listening.pids.map((pid) => [pid, 'gateway'] as const)] as const) {
    const args = commandLine(pid);
    assert.deepEqual(args.slice(1, -1), ['--conditions=@animal-store/built'], `${pkg} (pid ${pid}): ${args.join(' ')}`);
    assert.equal(resolve(root, 'packages', pkg, args.at(-1) ?? ''), join(root, 'packages', pkg, 'dist/main.js'));
  }
  assert.equal(listening.pids.length, 2);

  // A request through both: the route table from the shipped interface document, the core behind.
  const pets = await fetch(`${gateway.url}/v1/pets`);
  assert.equal(pets.status, 200);
  assert.deepEqual(await pets.json(), []);
  assert.match(pets.headers.get('ratelimit-policy') ?? '', /"minute";q=1000;/);
  // The reference page's renderer, from the redoc package the gateway resolves from its own folder.
  const renderer = await fetch(`${gateway.url}/docs/redoc.standalone.js`);
  assert.equal(renderer.status, 200);
  assert.ok((await renderer.arrayBuffer()).byteLength > 100_000);
  // The version, read from the gateway's package.json relative to the code.
  await eventually('the metrics listener says where it is', async () => logLine(gateway, 'metrics listening') !== undefined);
  const metricsUrl = String(logLine(gateway, 'metrics listening')?.metricsUrl);
  const { version } = JSON.parse(readFileSync(join(root, 'packages/gateway/package.json'), 'utf8')) as { version: string };
  assert.match(await (await fetch(metricsUrl)).text(), new RegExp(`^gateway_build_info\\{version="${version}",`, 'm'));

  // The admin console, from the built tree: the page, then every file it names, each with its type.
  const adminUrl = new URL('/admin', metricsUrl);
  const page = await fetch(adminUrl);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  const named = [...(await page.text()).matchAll(/(?:href|src)="(admin\/[^"]+)"/g)].map((match) => match[1] as string);
  assert.deepEqual(named.sort(), ['admin/console.css', 'admin/console.js']);
  const types: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' };
  for (const asset of named) {
    const answer = await fetch(new URL(asset, adminUrl));
    assert.equal(answer.status, 200, asset);
    assert.equal(answer.headers.get('content-type'), types[asset.split('.').at(-1) as string], asset);
    assert.ok((await answer.arrayBuffer()).byteLength > 0, asset);
  }
  const signedIn = await fetch(new URL('/admin/config', metricsUrl), { headers: admin.headers });
  assert.equal(signedIn.status, 200, 'the admin API behind the console answers its token');

  // A large change is read in a worker thread, by each worker (a new connection each time, so
  // that both take turns).
  writeLargePlans(plans, 1_001);
  let inARow = 0;
  await eventually('both workers apply the new plans', async () => {
    const answer = await fetch(`${gateway.url}/v1/pets`, { headers: { connection: 'close' } });
    await answer.arrayBuffer();
    inARow = /"minute";q=1001;/.test(answer.headers.get('ratelimit-policy') ?? '') ? inARow + 1 : 0;
    return inARow >= 4;
  });

  // SIGTERM to npm only (not its process group): npm passes it on, and each service drains.
  // (Their last lines may come in just after npm's exit: the pipe is read on.)
  assert.equal(await gateway.stop('SIGTERM'), 0, gateway.output());
  await eventually('the gateway says it stopped', async () => logLine(gateway, 'gateway stopped') !== undefined, 10_000);
  assert.equal(await core.stop('SIGTERM'), 0, core.output());
  await eventually('the core says it stopped', async () => logLine(core, 'core stopped') !== undefined, 10_000);
  assert.deepEqual(started.filter(alive), []);
});
