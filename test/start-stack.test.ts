import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const LAUNCHER = fileURLToPath(new URL('../scripts/start-stack.ts', import.meta.url));

test('npm start runs the core and the gateway, prints both URLs and demo keys, and Ctrl-C stops both', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', LAUNCHER], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', CORE_PORT: '0', METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const urls = await new Promise<{ gateway: string; core: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner in time:\n${output}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const gateway = /^ {2}gateway {2}(http:\/\/\S+)/m.exec(output)?.[1];
      const core = /^ {2}core {5}(http:\/\/\S+)/m.exec(output)?.[1];
      if (gateway !== undefined && core !== undefined) {
        clearTimeout(timer);
        resolve({ gateway, core });
      }
    });
  });
  try {
    const freeKey = /^ {4}free {7}(\S+)$/m.exec(output)?.[1];
    assert.ok(freeKey, `a demo key per plan is printed:\n${output}`);
    for (const plan of ['pro', 'business', 'enterprise']) assert.match(output, new RegExp(`^ {4}${plan} +eyJ\\S+$`, 'm'));
    assert.equal((await fetch(`${urls.gateway}/v1/pets`)).status, 401, 'keys are required');
    const created = await fetch(`${urls.gateway}/v1/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${freeKey}` },
      body: '{"name":"Rex","categoryId":1}',
    });
    assert.equal(created.status, 201);
    await checkExportLine(output, urls.gateway);
    const listed = (await (await fetch(`${urls.core}/v1/pets`)).json()) as { name: string }[];
    assert.deepEqual(
      listed.map((pet) => pet.name),
      ['Rex'],
      'the gateway forwards to the core it started',
    );
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, output);
  assert.match(output, /"msg":"gateway stopped"/);
  assert.match(output, /"msg":"core stopped"/);
  // Issue 29: on the supported Node that runs the tests, no line about the Node version.
  assert.doesNotMatch(output, /is not supported/);
});

/**
 * The banner's `export` line names exactly the six variables the documentation's examples use,
 * each key of the plan the docs say, the admin token the admin listener takes, and the banner's
 * sample curl, pasted after it, works.
 */
async function checkExportLine(banner: string, gateway: string): Promise<void> {
  const line = /^ {2}(export .+)$/m.exec(banner)?.[1];
  assert.ok(line, `an export line is printed:\n${banner}`);
  const values = Object.fromEntries(
    line
      .slice('export '.length)
      .split(' ')
      .map((pair) => pair.split('=') as [string, string]),
  );
  assert.deepEqual(Object.keys(values), ['KEY', 'FREE_KEY', 'ENTERPRISE_KEY', 'KEYS_DIR', 'PLANS_FILE', 'ADMIN_TOKEN']);
  const admin = /^ {2}admin {4}(http:\/\/127\.0\.0\.1:\d+\/admin) /m.exec(banner)?.[1];
  assert.ok(admin, `the admin listener is printed:\n${banner}`);
  const accounts = await fetch(`${admin}/accounts`, { headers: { authorization: `Bearer ${values.ADMIN_TOKEN}` } });
  assert.equal(accounts.status, 200, 'ADMIN_TOKEN opens the admin API');
  const printed = (plan: string) => new RegExp(`^ {4}${plan} +(\\S+)$`, 'm').exec(banner)?.[1];
  assert.deepEqual([values.KEY, values.FREE_KEY, values.ENTERPRISE_KEY], [printed('pro'), printed('free'), printed('enterprise')]);
  for (const [name, plan] of [
    ['KEY', 'pro'],
    ['FREE_KEY', 'free'],
    ['ENTERPRISE_KEY', 'enterprise'],
  ] as const) {
    const usage = await fetch(`${gateway}/v1/usage`, { headers: { authorization: `Bearer ${values[name]}` } });
    assert.equal(((await usage.json()) as { plan: string }).plan, plan, `${name} is the ${plan} key`);
  }
  assert.ok(existsSync(join(values.KEYS_DIR ?? '', 'public', 'jwks.json')), 'KEYS_DIR is the keyring the gateway reads');
  // PLANS_FILE is a copy of the shipped plans that the gateway reads: a change to it applies at once.
  const plans = JSON.parse(readFileSync(values.PLANS_FILE ?? '', 'utf8')) as { plans: { pro: { minute: number } } };
  writeFileSync(values.PLANS_FILE ?? '', JSON.stringify({ ...plans, plans: { ...plans.plans, pro: { ...plans.plans.pro, minute: 7 } } }));
  const changed = await fetch(`${gateway}/v1/usage`, { headers: { authorization: `Bearer ${values.KEY}` } });
  assert.equal(((await changed.json()) as { windows: { minute: { limit: number } } }).windows.minute.limit, 7, 'PLANS_FILE is the plans the gateway reads');
  writeFileSync(values.PLANS_FILE ?? '', JSON.stringify(plans));
  const curl = /^ {2}(curl .+)$/m.exec(banner)?.[1] ?? '';
  assert.match(curl, /"Authorization: Bearer \$KEY"/, 'the sample curl uses the variable the README names');
  const pasted = await run('bash', ['-c', `${line}\n${curl} -o /dev/null -w '%{http_code}'`]);
  assert.equal(pasted.stdout, '200', 'the export line and the curl, pasted, get the pets');
}

// Issue 39, point 3.10: the advice was `PORT=0 CORE_PORT=0` whichever port was busy, which fails
// the same way when the busy one is METRICS_PORT (9464).
test('npm start with a port taken names the variable, advises that one at 0, and prints no key', async () => {
  const holder = createServer((_req, res) => res.end('{"status":"ok"}'));
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    const port = String((holder.address() as AddressInfo).port);
    const runs = await Promise.all(
      (['PORT', 'CORE_PORT', 'METRICS_PORT'] as const).map(async (variable) => ({
        variable,
        ...(await launcherRun({ PORT: '0', CORE_PORT: '0', METRICS_PORT: '0', [variable]: port })),
      })),
    );
    for (const { variable, code, output } of runs) {
      assert.equal(code, 1, output);
      assert.match(
        output,
        new RegExp(
          `^npm start: port ${port} \\(${variable}\\) is already in use on 127\\.0\\.0\\.1: stop the program holding it, or let the stack pick a free one: ${variable}=0 npm start$`,
          'm',
        ),
      );
      assert.doesNotMatch(output, /demo API keys|eyJ/);
    }
  } finally {
    holder.close();
  }
});

/** Runs the launcher with `env` until it exits by itself: its exit code and all it printed. */
async function launcherRun(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', LAUNCHER], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}

// Issue 29, point 16: bad ports were not named (`options.port should be >= 0 and < 65536`), and
// equal ports printed the banner and the demo keys before the gateway failed.
test('npm start with a bad PORT or CORE_PORT, or two ports the same, names the variable and exits 2 before starting or printing anything', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = String((holder.address() as AddressInfo).port);
  await new Promise((resolve) => holder.close(resolve));
  const cases: { env: Record<string, string>; named: RegExp }[] = [
    { env: { PORT: 'abc', CORE_PORT: '0' }, named: /^ {2}- PORT: must be a whole number from 0 to 65535 .*"abc"$/m },
    { env: { PORT: '0', CORE_PORT: '70000' }, named: /^ {2}- CORE_PORT: must be a whole number from 0 to 65535 .*"70000"$/m },
    { env: { PORT: '-1', CORE_PORT: '8.5' }, named: /- PORT: .*\n {2}- CORE_PORT: / },
    { env: { PORT: port, CORE_PORT: port }, named: new RegExp(`^ {2}- PORT and CORE_PORT: both are ${port}; `, 'm') },
    { env: { PORT: '0', CORE_PORT: port, METRICS_PORT: port }, named: new RegExp(`^ {2}- CORE_PORT and METRICS_PORT: both are ${port}; `, 'm') },
    { env: { PORT: '0', CORE_PORT: '0', METRICS_PORT: 'x' }, named: /^ {2}- METRICS_PORT: must be a whole number from 0 to 65535 .*"x"$/m },
  ];
  const results = await Promise.all(cases.map(({ env }) => launcherRun(env)));
  for (const [i, { env, named }] of cases.entries()) {
    const { code, output } = results[i] as { code: number | null; output: string };
    assert.equal(code, 2, `${JSON.stringify(env)}:\n${output}`);
    assert.match(output, /^npm start: invalid configuration$/m);
    assert.match(output, named, JSON.stringify(env));
    assert.doesNotMatch(output, /demo API keys|eyJ|gateway {2}http|"msg"/, `${JSON.stringify(env)}: nothing started, nothing printed`);
  }
});
