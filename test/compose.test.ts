// docker-compose.yml and the Dockerfile, checked without a Docker engine: the compose file
// against the official compose-spec schema and dclint, then the rules this project deploys by.
// `npm run test:compose` (scripts/compose-smoke.sh) builds and runs them for real.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { CORE_ENV_NAMES } from '@animal-store/core/config';
import { GATEWAY_ENV_NAMES } from '@animal-store/gateway';
import { chainOf, copiesOf, instructionsOf, isDockerignored, parseDockerfile, stagesOf, type Instruction } from './dockerfile.js';
import { productionDependencies, type Lockfile } from './production-dependencies.js';

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string; target?: string };
  environment?: Record<string, unknown> | string[];
  env_file?: unknown;
  ports?: unknown[];
  restart?: string;
  healthcheck?: { test?: unknown; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string }>;
  volumes?: (string | { type?: string; source?: string; target?: string; read_only?: boolean })[];
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

/** The config schema of each service built from this repository; images made elsewhere (Redis, Prometheus) are exempt. */
const ENV_NAMES: Record<string, readonly string[]> = { core: CORE_ENV_NAMES, gateway: GATEWAY_ENV_NAMES };
/** Each package shipped as an image, by its directory under packages/; also its stage's name. */
const IMAGES = ['core', 'gateway'] as const;
/** The one Dockerfile both images are built from, by target. */
const dockerfile = parseDockerfile(read('Dockerfile'));
const dockerignore = read('.dockerignore');

/** The TypeScript tooling: the build uses it, the services never (docs/development.md#the-build). */
const TYPESCRIPT_TOOLING = ['tsx', 'typescript', 'esbuild'];

/** A package's `npm start` as the arguments of its `node` (without the shell's `exec`). */
function startCommand(pkg: string): string[] {
  const { scripts } = JSON.parse(read(`packages/${pkg}/package.json`)) as { scripts: { start: string } };
  return scripts.start.replace(/^exec /, '').split(' ');
}

/** A compose value with every `${NAME:-default}` replaced by its default: what runs unconfigured. */
const withDefaults = (value: string): string => value.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}/g, '$1');

/** The last instruction with that keyword in a target's stages (USER, CMD, … are inherited). */
const lastOf = (instructions: readonly Instruction[], keyword: string): Instruction | undefined => instructions.filter((i) => i.keyword === keyword).at(-1);

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

test("the gateway gets the keyring's public files and the plans as read-only directory mounts", () => {
  const gateway = compose.services.gateway;
  const env = envOf(gateway);
  const binds = (gateway?.volumes ?? []).filter((volume) => typeof volume !== 'object' || volume.type !== 'volume');
  const mounts = binds.map((volume) => {
    // The long syntax: a missing directory is an error, not an empty directory made by Docker.
    assert.ok(typeof volume === 'object', `use the long volume syntax: ${String(volume)}`);
    assert.equal(volume.type, 'bind');
    assert.equal(volume.read_only, true, `${volume.target} must be read-only`);
    return { source: volume.source ?? '', target: volume.target ?? '' };
  });
  const mountOf = (file: string | undefined) => mounts.find(({ target }) => file?.startsWith(`${target}/`) === true);

  // Keys: public/ of the operator's keyring, never the keyring itself (private/ holds the signing keys).
  assert.equal(env.JWKS, undefined, 'no inline JWKS: rotation would need a recreate');
  const keys = mountOf(env.JWKS_FILE);
  assert.ok(keys !== undefined, 'JWKS_FILE is in a mounted directory');
  assert.equal(mountOf(env.REVOCATIONS_FILE), keys, 'REVOCATIONS_FILE is beside the JWKS');
  assert.equal(env.JWKS_FILE, `${keys.target}/jwks.json`);
  assert.equal(env.REVOCATIONS_FILE, `${keys.target}/revoked.json`);
  assert.equal(keys.source, '${ANIMAL_STORE_KEYS:-./keys}/public');
  assert.ok(!mounts.some(({ source }) => /private|\/keys\}?$/.test(source)), 'private keys are never mounted');

  // Plans: by default the very directory the image ships, so the data exists once.
  const plans = mountOf(env.PLANS_FILE);
  assert.ok(plans !== undefined, 'PLANS_FILE is in a mounted directory');
  assert.equal(env.PLANS_FILE, `${plans.target}/plans.json`);
  const defaultPlans = withDefaults(plans.source).replace(/^\.\//, '');
  assert.ok(existsSync(join(root, defaultPlans, 'plans.json')), `${defaultPlans}/plans.json is missing`);
  assert.ok(
    copiesOf(instructionsOf(dockerfile, 'gateway')).some((copy) => copy.sources.includes(defaultPlans)),
    'the image ships the same plans',
  );

  assert.equal(env.KEY_AUDIENCE, 'animal-store-production');
  assert.equal(env.REDIS_URL, 'redis://redis:6379');
  assert.ok('redis' in compose.services);
});

test('the TLS override mounts the certificate directory read-only and points the gateway into it', () => {
  const tls = parse(read('docker-compose.tls.yml')) as { services: Record<string, Service> };
  assert.ok(validateCompose(tls), JSON.stringify(validateCompose.errors, null, 2));
  assert.deepEqual(Object.keys(tls.services), ['gateway']);
  const env = envOf(tls.services.gateway);
  assert.deepEqual(
    Object.keys(env).filter((name) => !GATEWAY_ENV_NAMES.includes(name)),
    [],
  );
  const [mount, ...others] = tls.services.gateway?.volumes ?? [];
  assert.ok(typeof mount === 'object' && others.length === 0);
  assert.equal(mount.read_only, true);
  assert.match(mount.source ?? '', /^\$\{ANIMAL_STORE_TLS:\?/, 'compose refuses to start without the directory');
  for (const file of [env.TLS_CERT_FILE, env.TLS_KEY_FILE]) assert.equal(dirname(file ?? ''), mount.target);
  const check = tls.services.gateway?.healthcheck?.test;
  assert.ok(Array.isArray(check) && String(check.at(-1)).includes("'https'"), 'the healthcheck speaks TLS');
});

test('no top-level name: docker-compose 1.29 refuses it (the project name is -p)', () => {
  for (const file of ['docker-compose.yml', 'docker-compose.staging.yml', 'docker-compose.tls.yml']) {
    assert.equal('name' in (parse(read(file)) as object), false, file);
  }
});

test('dclint finds no error and no warning', () => {
  const cli = join(dclintDir, dclintPackage.bin.dclint);
  for (const file of ['docker-compose.yml', 'docker-compose.staging.yml', 'docker-compose.tls.yml']) {
    const args = [cli, file, '-c', '.dclintrc.yml', '--max-warnings', '0', '--color', 'false'];
    const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, `${file}: ${run.stdout}${run.stderr}`);
  }
});

test('only the gateway publishes ports: 8080 unless ANIMAL_STORE_PORT says otherwise, and its admin listener on the loopback only', () => {
  for (const [name, service] of services) {
    if (name === 'gateway') assert.deepEqual(service.ports, ['127.0.0.1:${ANIMAL_STORE_ADMIN_PORT:-9464}:9464', '${ANIMAL_STORE_PORT:-8080}:8080']);
    else assert.equal(service.ports, undefined, `${name} must not publish ports`);
  }
  assert.equal(envOf(compose.services.gateway).METRICS_PORT, '9464', 'the port published on the loopback is the admin listener');
});

test('the admin API: tokens as a secret file, its deny-list on a volume the gateway may write', () => {
  const gateway = compose.services.gateway as Service & { secrets?: { source: string; target: string }[] };
  const env = envOf(gateway);
  const secrets = (compose as { secrets?: Record<string, { file?: string }> }).secrets ?? {};
  assert.deepEqual(gateway.secrets, [{ source: 'admin-tokens', target: 'admin-tokens' }]);
  assert.equal(secrets['admin-tokens']?.file, '${ANIMAL_STORE_ADMIN_TOKENS:-./admin-tokens}');
  assert.equal(env.ADMIN_TOKEN_FILE, '/run/secrets/admin-tokens');
  const volume = (gateway.volumes ?? []).find((mount) => typeof mount === 'object' && mount.type === 'volume');
  assert.ok(typeof volume === 'object' && volume.source === 'gateway-admin');
  assert.equal(env.ADMIN_REVOCATIONS_FILE, `${volume.target}/revoked.json`);
  // A named volume takes the owner of the image's directory: the gateway's user must own it.
  assert.ok(
    instructionsOf(dockerfile, 'gateway').some((i) => i.keyword === 'RUN' && i.args.includes(`-o node`) && i.args.endsWith(volume.target ?? '')),
    'the image makes the directory, owned by node',
  );
  assert.ok(isDockerignored('admin-tokens', dockerignore), 'the token file stays out of the build context');
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

test('every build points at a Dockerfile in this repository, and at the stage named after the service', () => {
  for (const [name, service] of services.filter(([, s]) => s.build !== undefined)) {
    const build = typeof service.build === 'string' ? { context: service.build } : (service.build ?? {});
    const file = join(root, build.context ?? '.', build.dockerfile ?? 'Dockerfile');
    assert.ok(existsSync(file), `${name}: ${file} is missing`);
    assert.equal(build.target, name, `${name}: build.target`);
    assert.doesNotThrow(() => chainOf(parseDockerfile(readFileSync(file, 'utf8')), name), `${name}: no such stage`);
  }
});

test('each service sets only variables its config schema reads, and listens on 0.0.0.0', () => {
  for (const [name, service] of services) {
    if (service.build === undefined) continue;
    const known = ENV_NAMES[name];
    assert.ok(known !== undefined, `${name}: no config schema to check its environment against`);
    const env = envOf(service);
    const unknown = Object.keys(env).filter((variable) => !known.includes(variable));
    assert.deepEqual(unknown, [], `${name} sets variables its config does not read`);
    assert.equal(env.HOST, '0.0.0.0', `${name}: HOST (containers must listen beyond loopback)`);
  }
});

test('the services find each other: URLs name services on the ports their images expose', () => {
  const expose = (pkg: string) => lastOf(instructionsOf(dockerfile, pkg), 'EXPOSE')?.args;
  const upstream = new URL(envOf(compose.services.gateway).UPSTREAM_URL ?? '');
  assert.equal(upstream.hostname, 'core');
  assert.equal(upstream.port, expose('core'));
  const published = (compose.services.gateway?.ports ?? []).map((port) => withDefaults(String(port)));
  assert.ok(published.includes(`${expose('gateway')}:${expose('gateway')}`), published.join(', '));
  const petsRedis = new URL(envOf(compose.services.core).PETS_REDIS_URL ?? '').hostname;
  assert.equal(compose.services[petsRedis]?.image?.startsWith('redis:'), true, `${petsRedis} is not a Redis service`);
});

test('Dockerfile: every stage starts from slim Node 22 or from another stage', () => {
  const stages = stagesOf(dockerfile);
  const names = new Set(stages.map((stage) => stage.name));
  for (const { image } of stages.filter((stage) => !names.has(stage.image))) {
    assert.match(image, /^node:22(\.\d+)*-([a-z]+-)?slim(@sha256:[0-9a-f]{64})?$/);
  }
});

test('Dockerfile: every file it copies exists and is in the build context', () => {
  for (const source of copiesOf(dockerfile)
    .filter((copy) => copy.from === undefined)
    .flatMap((copy) => copy.sources)) {
    assert.ok(existsSync(join(root, source)), `${source} does not exist`);
    assert.ok(!isDockerignored(source, dockerignore), `${source} is excluded by .dockerignore`);
  }
});

test('.dockerignore keeps keyrings and tests out of the build context, and sources in', () => {
  for (const secret of [
    'keys/private/k1.json',
    'keys/public/jwks.json',
    'keys/state.json',
    'keys-staging/private/k1.json',
    'packages/gateway/keys/private/k1.json',
  ]) {
    assert.ok(isDockerignored(secret, dockerignore), `${secret} would be sent to the builder`);
  }
  for (const test of ['packages/gateway/src/errors.test.ts', 'packages/core/test/store.ts']) {
    assert.ok(isDockerignored(test, dockerignore), `${test} would be shipped`);
  }
  assert.ok(!isDockerignored('packages/gateway/src/cli/keys.ts', dockerignore), 'a source named keys is kept');
});

for (const pkg of IMAGES) {
  test(`Dockerfile target ${pkg}: production deps installed in a stage of their own, non-root, healthcheck`, () => {
    const own = instructionsOf(dockerfile, pkg);
    const name = (JSON.parse(read(`packages/${pkg}/package.json`)) as { name: string }).name;

    // Multi-stage: node_modules is installed elsewhere and copied in, so npm and its cache stay out.
    assert.ok(!own.some((i) => i.keyword === 'RUN' && /\bnpm (ci|install|i)\b/.test(i.args)), 'no npm install in the runtime stages');
    const modules = copiesOf(own).find((copy) => copy.from !== undefined && copy.sources.some((source) => source.endsWith('/node_modules')));
    assert.ok(modules?.from !== undefined, 'node_modules is copied from a deps stage');
    const deps = instructionsOf(dockerfile, modules.from);
    const npmCi = deps.find((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args))?.args ?? '';
    assert.match(npmCi, /--omit=dev\b/);
    assert.match(npmCi, new RegExp(`--workspace[= ]${name}(\\s|$)`), "installs this package's dependencies");
    // npm ci refuses a lockfile that names a workspace whose package.json is missing.
    const depsSources = copiesOf(deps).flatMap((copy) => copy.sources);
    assert.ok(depsSources.includes('package-lock.json'), 'deps stage lacks the lockfile');
    for (const workspace of readdirSync(join(root, 'packages')).filter((dir) => existsSync(join(root, 'packages', dir, 'package.json')))) {
      assert.ok(depsSources.includes(`packages/${workspace}/package.json`), `deps stage lacks ${workspace}`);
    }

    const user = lastOf(own, 'USER')?.args ?? '';
    assert.ok(user !== '' && !/^(root|0)(:|$)/.test(user), 'runs as a non-root user');
    assert.ok(!own.some((i) => i.keyword === 'COPY' && /--ch(own|mod)\b/.test(i.args)), 'files stay owned by root');
    assert.equal(lastOf(own, 'WORKDIR')?.args, `/app/packages/${pkg}`);
    // The healthcheck probes process.env.PORT: the image must set it to the port it exposes.
    const port = lastOf(own, 'EXPOSE')?.args;
    assert.ok(
      own.some((i) => i.keyword === 'ENV' && i.args === `PORT=${port}`),
      `ENV PORT=${port}`,
    );
    const healthcheck = lastOf(own, 'HEALTHCHECK');
    assert.ok(healthcheck !== undefined && !/^NONE\b/i.test(healthcheck.args), 'has a HEALTHCHECK');
    // Docker silently falls back to a shell when an exec-form array is not valid JSON.
    const cmd = lastOf(own, 'CMD');
    for (const exec of [healthcheck.args.replace(/^.*?\bCMD\s+/, ''), cmd?.args]) {
      assert.doesNotThrow(() => JSON.parse(exec ?? ''), `not valid exec form: ${exec}`);
    }
    // One process, so SIGTERM reaches main.ts and the service drains; the one `npm run ${pkg}` starts.
    assert.deepEqual(JSON.parse(cmd?.args ?? ''), startCommand(pkg));
    assert.equal(startCommand(pkg)[0], 'node');
  });

  test(`Dockerfile target ${pkg}: no TypeScript tooling among its production dependencies`, () => {
    const lock = JSON.parse(read('package-lock.json')) as Lockfile;
    const installed = productionDependencies(lock, `packages/${pkg}`);
    assert.ok(installed.has('pino'), 'the production dependencies are read from the lockfile');
    assert.deepEqual(
      TYPESCRIPT_TOOLING.filter((tool) => installed.has(tool)),
      [],
    );
  });

  test(`Dockerfile target ${pkg}: ships what npm run build compiled, for it and its workspace dependencies, and no TypeScript`, () => {
    const copies = copiesOf(instructionsOf(dockerfile, pkg));
    const fromContext = copies.filter((copy) => copy.from === undefined).flatMap((copy) => copy.sources);
    const built = copies.filter((copy) => copy.from === 'build').flatMap((copy) => copy.sources);
    assert.ok(
      instructionsOf(dockerfile, 'build').some((i) => i.keyword === 'RUN' && i.args === 'npm run build'),
      'the build stage runs npm run build',
    );
    assert.ok(built.includes(`/app/packages/${pkg}/dist`));
    // node_modules links workspace dependencies to packages/<name>: the runtime needs their code.
    const { dependencies = {} } = JSON.parse(read(`packages/${pkg}/package.json`)) as { dependencies?: Record<string, string> };
    for (const dependency of Object.keys(dependencies).filter((name) => name.startsWith('@animal-store/'))) {
      const dir = `packages/${dependency.slice('@animal-store/'.length)}`;
      assert.ok(built.includes(`/app/${dir}/dist`), `runtime stages lack ${dir}/dist`);
      assert.ok(fromContext.includes(`${dir}/package.json`), `runtime stages lack ${dir}/package.json`);
    }
    assert.deepEqual(
      fromContext.filter((source) => /(^|\/)(src|tsconfig[^/]*\.json)$/.test(source)),
      [],
      'no TypeScript source or configuration is shipped',
    );
    if (pkg === 'gateway') {
      assert.ok(fromContext.includes('packages/core/openapi.json'), 'the interface document');
      assert.ok(fromContext.includes('packages/gateway/plans'), 'the default plans');
    }
    // Nothing of the other service: each image carries one service.
    const other = IMAGES.find((image) => image !== pkg);
    assert.ok(!built.includes(`/app/packages/${other}/dist`), `ships packages/${other}/dist`);
  });
}
