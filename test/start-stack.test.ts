import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const LAUNCHER = fileURLToPath(new URL('../scripts/start-stack.ts', import.meta.url));

test('npm start runs the core and the gateway, prints both URLs and demo keys, and Ctrl-C stops both', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', LAUNCHER], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', CORE_PORT: '0' },
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
});

test("npm start with the gateway's port taken says so and how to pick another, before printing any key", async () => {
  const holder = createServer((_req, res) => res.end('{"status":"ok"}'));
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    const port = (holder.address() as AddressInfo).port;
    const child = spawn(process.execPath, ['--import', 'tsx', LAUNCHER], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port), CORE_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 1, output);
    assert.match(output, new RegExp(`port ${port} \\(PORT\\) is already in use on 127\\.0\\.0\\.1: .*PORT=0 CORE_PORT=0 npm start`));
    assert.doesNotMatch(output, /demo API keys|eyJ/);
  } finally {
    holder.close();
  }
});
