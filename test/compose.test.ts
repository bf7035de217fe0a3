// docker-compose.yml and the Dockerfiles, checked without a Docker engine: the compose file
// against the official compose-spec schema and dclint, then the rules this project deploys by.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { CORE_ENV_NAMES } from '../packages/core/src/config.js';
import { GATEWAY_ENV_NAMES } from '../packages/gateway/src/config/index.js';
import { copiesOf, isDockerignored, parseDockerfile, stagesOf } from './dockerfile.js';

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  environment?: Record<string, unknown> | string[];
  env_file?: unknown;
  ports?: unknown[];
  restart?: string;
  healthcheck?: { test?: unknown; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string }>;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service> };
const services = Object.entries(compose.services);

// dclint's exports only allow './package.json'; its schema and CLI are found beside it.
const dclintDir = dirname(createRequire(import.meta.url).resolve('dclint/package.json'));
const dclintPackage = JSON.parse(readFileSync(join(dclintDir, 'package.json'), 'utf8')) as { bin: { dclint: string } };
const schema = JSON.parse(readFileSync(join(dclintDir, 'schemas/compose.schema.json'), 'utf8')) as Record<string, unknown>;
// The schema names draft-07 by an https URL Ajv does not know; draft-07 is Ajv's default anyway.
delete schema.$schema;
// The schema uses no `format`, so skipping format validation loses nothing (ajv-formats is absent).
const validateCompose = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(schema);

/** The config schema of each service built from this repository; Redis services are exempt. */
const ENV_NAMES: Record<string, readonly string[]> = { core: CORE_ENV_NAMES, gateway: GATEWAY_ENV_NAMES };
/** Each package shipped as an image, by its directory under packages/. */
const IMAGES = ['core', 'gateway'] as const;

/** A service's `environment:` as a map, from either the map or the `KEY=value` list form. */
function envOf(service: Service | undefined): Record<string, string> {
  const env = service?.environment ?? {};
  const entries = Array.isArray(env)
    ? env.map((entry) => [entry.split('=')[0] ?? '', entry.split('=').slice(1).join('=')])
    : Object.entries(env).map(([key, value]) => [key, String(value)]);
  return Object.fromEntries(entries);
}

test('docker-compose.yml is valid against the compose-spec schema', () => {
  const valid = validateCompose(compose);
  assert.ok(valid, JSON.stringify(validateCompose.errors, null, 2));
});

test('the schema check fails on broken files, so it cannot pass by accident', () => {
  const stringPorts = structuredClone(compose) as { services: Record<string, Record<string, unknown>> };
  (stringPorts.services.gateway ?? {}).ports = '8080';
  assert.equal(validateCompose(stringPorts), false, 'ports as a string should be invalid');
  const unknownKey = structuredClone(compose) as { services: Record<string, Record<string, unknown>> };
  (unknownKey.services.core ?? {}).restart_policy = 'always';
  assert.equal(validateCompose(unknownKey), false, 'an unknown service key should be invalid');
});

test('the staging override is valid and only changes who the keys are for', () => {
  const staging = parse(read('docker-compose.staging.yml')) as { services: Record<string, Service> };
  assert.ok(validateCompose(staging), JSON.stringify(validateCompose.errors, null, 2));
  assert.deepEqual(Object.keys(staging.services), ['gateway']);
  const env = envOf(staging.services.gateway);
  assert.deepEqual(Object.keys(env).sort(), ['KEY_AUDIENCE', 'KEY_ISSUER']);
  assert.notEqual(env.KEY_AUDIENCE, envOf(compose.services.gateway).KEY_AUDIENCE, 'staging and production audiences differ');
});

test('the gateway gets its keys and Redis from the environment, and cannot start without keys', () => {
  const env = envOf(compose.services.gateway);
  assert.match(env.JWKS ?? '', /^\$\{ANIMAL_STORE_JWKS:\?/, 'compose refuses to start without a JWKS');
  assert.equal(env.KEY_AUDIENCE, 'animal-store-production');
  assert.equal(env.REDIS_URL, 'redis://redis:6379');
  assert.ok('redis' in compose.services);
});

test('dclint finds no error and no warning', () => {
  const cli = join(dclintDir, dclintPackage.bin.dclint);
  for (const file of ['docker-compose.yml', 'docker-compose.staging.yml']) {
    const args = [cli, file, '-c', '.dclintrc.yml', '--max-warnings', '0', '--color', 'false'];
    const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, `${file}: ${run.stdout}${run.stderr}`);
  }
});

test('only the gateway publishes a port, and that port is 8080', () => {
  for (const [name, service] of services) {
    if (name === 'gateway') assert.deepEqual(service.ports, ['8080:8080']);
    else assert.equal(service.ports, undefined, `${name} must not publish ports`);
  }
});

test('every service restarts, has a healthcheck and waits for healthy dependencies', () => {
  for (const [name, service] of services) {
    assert.equal(service.restart, 'unless-stopped', `${name}: restart`);
    assert.ok(Array.isArray(service.healthcheck?.test) && service.healthcheck.disable !== true, `${name}: healthcheck`);
    assert.equal(service.env_file, undefined, `${name}: configuration goes in environment:, not env_file`);
    assert.ok(!Array.isArray(service.depends_on), `${name}: depends_on needs a condition`);
    for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
      assert.equal(condition, 'service_healthy', `${name} -> ${dependency}`);
    }
  }
});

test('every build points at a Dockerfile in this repository', () => {
  for (const [name, service] of services.filter(([, s]) => s.build !== undefined)) {
    const build = typeof service.build === 'string' ? { context: service.build } : (service.build ?? {});
    const dockerfile = join(root, build.context ?? '.', build.dockerfile ?? 'Dockerfile');
    assert.ok(existsSync(dockerfile), `${name}: ${dockerfile} is missing`);
  }
});

test('each service sets only variables its config schema reads, and listens on 0.0.0.0', () => {
  for (const [name, service] of services) {
    if (service.image?.startsWith('redis:') === true) continue;
    const known = ENV_NAMES[name];
    assert.ok(known !== undefined, `${name}: no config schema to check its environment against`);
    const env = envOf(service);
    const unknown = Object.keys(env).filter((variable) => !known.includes(variable));
    assert.deepEqual(unknown, [], `${name} sets variables its config does not read`);
    assert.equal(env.HOST, '0.0.0.0', `${name}: HOST (containers must listen beyond loopback)`);
  }
});

test('the services find each other: URLs name services on the ports their images expose', () => {
  const expose = (pkg: string) => parseDockerfile(read(`packages/${pkg}/Dockerfile`)).find((i) => i.keyword === 'EXPOSE')?.args;
  const upstream = new URL(envOf(compose.services.gateway).UPSTREAM_URL ?? '');
  assert.equal(upstream.hostname, 'core');
  assert.equal(upstream.port, expose('core'));
  assert.equal(`${expose('gateway')}:${expose('gateway')}`, compose.services.gateway?.ports?.[0]);
  const petsRedis = new URL(envOf(compose.services.core).PETS_REDIS_URL ?? '').hostname;
  assert.equal(compose.services[petsRedis]?.image?.startsWith('redis:'), true, `${petsRedis} is not a Redis service`);
});

for (const pkg of IMAGES) {
  test(`packages/${pkg}/Dockerfile: slim Node 22, production deps only, non-root, healthcheck`, () => {
    const instructions = parseDockerfile(read(`packages/${pkg}/Dockerfile`));
    const stages = stagesOf(instructions);
    const last = stages.length - 1;
    assert.ok(stages.length >= 2, 'multi-stage: dependencies are installed in a stage of their own');
    const stageNames = new Set(stages.map((stage) => stage.name));
    for (const { image } of stages.filter((stage) => !stageNames.has(stage.image))) {
      assert.match(image, /^node:22(\.\d+)*-([a-z]+-)?slim(@sha256:[0-9a-f]{64})?$/);
    }

    const name = (JSON.parse(read(`packages/${pkg}/package.json`)) as { name: string }).name;
    const npmCi = instructions.find((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args))?.args ?? '';
    assert.match(npmCi, /--omit=dev\b/);
    assert.match(npmCi, new RegExp(`--workspace[= ]${name}(\\s|$)`), 'installs this package\'s dependencies');

    const users = instructions.filter((i) => i.keyword === 'USER' && i.stage === last);
    assert.ok(users.length > 0 && !/^(root|0)(:|$)/.test(users.at(-1)?.args ?? ''), 'runs as a non-root user');
    const healthcheck = instructions.find((i) => i.keyword === 'HEALTHCHECK' && i.stage === last);
    assert.ok(healthcheck !== undefined && !/^NONE\b/i.test(healthcheck.args), 'has a HEALTHCHECK');
    // Docker silently falls back to a shell when an exec-form array is not valid JSON.
    const cmd = instructions.find((i) => i.keyword === 'CMD' && i.stage === last);
    for (const exec of [healthcheck?.args.replace(/^.*?\bCMD\s+/, ''), cmd?.args]) {
      assert.doesNotThrow(() => JSON.parse(exec ?? ''), `not valid exec form: ${exec}`);
    }
  });

  test(`packages/${pkg}/Dockerfile: every file it copies exists and is in the build context`, () => {
    const copies = copiesOf(parseDockerfile(read(`packages/${pkg}/Dockerfile`)));
    const dockerignore = read('.dockerignore');
    for (const source of copies.filter((copy) => copy.from === undefined).flatMap((copy) => copy.sources)) {
      assert.ok(existsSync(join(root, source)), `${source} does not exist`);
      assert.ok(!isDockerignored(source, dockerignore), `${source} is excluded by .dockerignore`);
    }
    // npm ci refuses a lockfile that names a workspace whose package.json is missing.
    const depsSources = copies.filter((copy) => copy.stage === 0).flatMap((copy) => copy.sources);
    for (const workspace of readdirSync(join(root, 'packages')).filter((dir) => existsSync(join(root, 'packages', dir, 'package.json')))) {
      assert.ok(depsSources.includes(`packages/${workspace}/package.json`), `deps stage lacks ${workspace}`);
    }
    if (pkg === 'gateway') {
      assert.ok(copies.some((copy) => copy.sources.includes('packages/core/openapi.json')), 'the interface document');
      assert.ok(copies.some((copy) => copy.sources.includes('packages/gateway/plans.json')), 'the default plans');
    }

    // node_modules links workspace dependencies to packages/<name>: the runtime needs their sources.
    const runtimeSources = copies.filter((copy) => copy.stage > 0 && copy.from === undefined).flatMap((copy) => copy.sources);
    const { dependencies = {} } = JSON.parse(read(`packages/${pkg}/package.json`)) as { dependencies?: Record<string, string> };
    for (const dependency of Object.keys(dependencies).filter((name) => name.startsWith('@animal-store/'))) {
      const dir = `packages/${dependency.slice('@animal-store/'.length)}`;
      assert.ok(runtimeSources.includes(`${dir}/src`), `runtime stage lacks ${dir}/src`);
      assert.ok(runtimeSources.includes(`${dir}/package.json`), `runtime stage lacks ${dir}/package.json`);
    }
  });
}
