import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  capturedLog,
  createTestKeyring,
  PROXY_TEST_PATHS,
  writeDocument,
  startGateway,
  startRecordingUpstream,
  writePlansFile,
  type RecordingUpstream,
  type RunningGateway,
} from './support/index.js';

// Issue 29, points 8, 11 and 13: what a running gateway says when PLANS_FILE changes. One log line
// per outcome, each naming the version in force (the content's hash and modification time), and
// the version as a metric, so the instances of a deployment can be compared.

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}
const hashOf = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16);

describe('PLANS_FILE changes, as the log and the metrics tell them', () => {
  let upstream: RecordingUpstream;
  let keyring: Awaited<ReturnType<typeof createTestKeyring>>;
  let token: string;
  const file = writePlansFile();
  const shipped = JSON.parse(readFileSync(file, 'utf8')) as { plans: Record<string, object> };
  const write = (plans: Record<string, object>) => writeFileSync(file, JSON.stringify({ ...shipped, plans }));
  const started: { gateway: RunningGateway; log: ReturnType<typeof capturedLog> }[] = [];

  const start = async (env: Record<string, string> = {}) => {
    const log = capturedLog();
    const gateway = await startGateway(
      { UPSTREAM_URL: upstream.url, OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS), JWKS_FILE: keyring.files.jwks, PLANS_FILE: file, METRICS_PORT: '0', ...env },
      undefined,
      undefined,
      { logger: log.logger },
    );
    started.push({ gateway, log });
    const lines = () =>
      log
        .text()
        .split('\n')
        .filter((line) => line.includes('PLANS_FILE'))
        .map((line) => JSON.parse(line) as Line);
    const request = async () => {
      const res = await fetch(`${gateway.url}/v1/echo`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      return res;
    };
    const metrics = async () => (await fetch(gateway.metricsUrl as string)).text();
    return { gateway, lines, request, metrics };
  };

  before(async () => {
    upstream = await startRecordingUpstream();
    keyring = await createTestKeyring();
    token = (await keyring.issue({ plan: 'free', sub: 'reloads' })).token;
  });
  after(async () => {
    for (const { gateway } of started) await gateway.close();
    await upstream?.close();
  });

  test('a valid change logs the plans added, removed and changed, and the version; the metric follows', async () => {
    write({ ...shipped.plans, trial: { minute: 2, day: 20 } });
    const { lines, request, metrics } = await start();
    const first = hashOf(file);
    assert.match(await metrics(), new RegExp(`^gateway_plans_info\\{version="${first}"\\} 1$`, 'm'));
    write({ ...shipped.plans, free: { minute: 61, day: 1000 }, gold: { minute: 9, day: 90 } });
    assert.equal((await request()).headers.get('x-ratelimit-limit'), '61');
    const reloaded = lines().at(-1);
    assert.equal(reloaded?.level, 30);
    assert.equal(reloaded?.msg, `PLANS_FILE reloaded (version ${hashOf(file)})`);
    assert.deepEqual([reloaded?.added, reloaded?.removed, reloaded?.changed, reloaded?.file], [['gold'], ['trial'], ['free'], file]);
    assert.equal(typeof reloaded?.modified, 'string');
    const text = await metrics();
    assert.match(text, new RegExp(`^gateway_plans_info\\{version="${hashOf(file)}"\\} 1$`, 'm'));
    assert.doesNotMatch(text, new RegExp(first), 'only the version in force is exposed');
    assert.match(text, /^gateway_plans_reloads_total\{outcome="loaded"\} 1$/m);
  });

  test('two instances that keep different versions say which; a valid file brings both to the same one', async () => {
    write(shipped.plans);
    const busy = await start();
    const idle = await start();
    const v1 = hashOf(file);
    write({ ...shipped.plans, free: { minute: 62, day: 1000 } });
    const v2 = hashOf(file);
    assert.equal((await busy.request()).headers.get('x-ratelimit-limit'), '62');
    // Broken before the idle instance looked: it keeps v1, the busy one v2, for good.
    writeFileSync(file, '{"plans": {');
    assert.equal((await busy.request()).headers.get('x-ratelimit-limit'), '62');
    assert.equal((await idle.request()).headers.get('x-ratelimit-limit'), '60');
    for (const [instance, kept] of [
      [busy, v2],
      [idle, v1],
    ] as const) {
      const failed = instance.lines().at(-1);
      assert.equal(failed?.level, 50);
      assert.match(failed?.msg ?? '', new RegExp(`^PLANS_FILE could not be read again; keeping the last good content \\(version ${kept} of \\S+\\)$`));
      assert.equal(failed?.version, kept);
      assert.match(await instance.metrics(), new RegExp(`^gateway_plans_info\\{version="${kept}"\\} 1$`, 'm'));
      assert.match(await instance.metrics(), /^gateway_plans_reloads_total\{outcome="failed"\} 1$/m);
    }
    write({ ...shipped.plans, free: { minute: 63, day: 1000 } });
    for (const instance of [busy, idle]) {
      assert.equal((await instance.request()).headers.get('x-ratelimit-limit'), '63');
      assert.match(await instance.metrics(), new RegExp(`^gateway_plans_info\\{version="${hashOf(file)}"\\} 1$`, 'm'));
    }
  });

  test('a deleted file is a warning naming the version kept, once; its return is a reload', async () => {
    write(shipped.plans);
    const { lines, request, metrics } = await start();
    const kept = hashOf(file);
    rmSync(file);
    assert.equal((await request()).headers.get('x-ratelimit-limit'), '60', 'the last good plans stay');
    await request();
    const gone = lines().filter((line) => line.msg.startsWith('PLANS_FILE is gone'));
    assert.equal(gone.length, 1, 'said once');
    assert.equal(gone[0]?.level, 40);
    assert.match(gone[0]?.msg ?? '', new RegExp(`keeping the last good content \\(version ${kept} of `));
    assert.match(await metrics(), /^gateway_plans_reloads_total\{outcome="missing"\} 1$/m);
    write({ ...shipped.plans, free: { minute: 64, day: 1000 } });
    assert.equal((await request()).headers.get('x-ratelimit-limit'), '64');
    assert.equal(lines().at(-1)?.msg, `PLANS_FILE reloaded (version ${hashOf(file)})`);
  });

  test('a change that removes a plan SHADOW_PLANS names is a warning naming it', async () => {
    write({ ...shipped.plans, trial: { minute: 2, day: 20 } });
    const { lines, request } = await start({ SHADOW_PLANS: 'trial' });
    write(shipped.plans);
    await request();
    const line = lines().at(-1);
    assert.equal(line?.level, 40);
    assert.match(line?.msg ?? '', /^PLANS_FILE reloaded \(version \w+\) without plans that SHADOW_PLANS names: trial$/);
    assert.deepEqual(line?.shadowPlansMissing, ['trial']);
    assert.deepEqual(line?.removed, ['trial']);
  });
});
