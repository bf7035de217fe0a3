import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { temporaryDir, type ServiceProcess } from '@animal-store/testkit';
import ts from 'typescript';
import { ApiError, createClient, type AnimalStoreClient, type Pet } from '../src/index.js';
import { createTestKeyring, startCore, startGatewayProcess } from './stack.js';

describe('one page at a time: listPetsPage and cursor, against the real gateway and core', () => {
  let core: ServiceProcess;
  let gateway: ServiceProcess;
  let client: AnimalStoreClient;
  const created: Pet[] = [];

  before(async () => {
    const keyring = await createTestKeyring();
    core = await startCore();
    gateway = await startGatewayProcess(core.url, { JWKS_FILE: keyring.files.jwks });
    client = createClient({ baseUrl: `${gateway.url}/v1`, apiKey: (await keyring.issue({ plan: 'pro', sub: 'client-pages' })).token });
    for (const name of ['Ada', 'Bo', 'Cy', 'Di', 'Ed']) created.push(await client.createPet({ name, categoryId: 2, status: 'pending' }));
    await client.createPet({ name: 'Other', categoryId: 2, status: 'sold' });
  });
  after(async () => {
    await gateway?.stop();
    await core?.stop();
  });

  test('listPetsPage gives each page and the next cursor, undefined on the last; the pages are every pet once', async () => {
    const pages: (readonly Pet[])[] = [];
    const cursors: (string | undefined)[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPetsPage({ status: 'pending', limit: 2, ...(cursor === undefined ? {} : { cursor }) });
      pages.push(page.pets);
      cursors.push(page.nextCursor);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(
      pages.map((pets) => pets.map((pet) => pet.name)),
      [['Ada', 'Bo'], ['Cy', 'Di'], ['Ed']],
    );
    assert.deepEqual(pages.flat(), created);
    assert.equal(cursors.length, 3);
    assert.ok(
      cursors.slice(0, 2).every((next) => typeof next === 'string' && /^[A-Za-z0-9_-]{1,32}$/.test(next)),
      String(cursors),
    );
    assert.equal(cursors[2], undefined);
  });

  test('listPets takes the cursor too and still returns the bare page; allPets starts from it', async () => {
    const first = await client.listPetsPage({ status: 'pending', limit: 2 });
    assert.ok(first.nextCursor !== undefined);
    const second = await client.listPets({ status: 'pending', limit: 2, cursor: first.nextCursor });
    assert.deepEqual(second, created.slice(2, 4));
    const rest: Pet[] = [];
    for await (const pet of client.allPets({ status: 'pending', limit: 2, cursor: first.nextCursor })) rest.push(pet);
    assert.deepEqual(rest, created.slice(2));
    // Without a cursor, as before: the first page.
    assert.deepEqual(await client.listPets({ status: 'pending', limit: 2 }), created.slice(0, 2));
  });

  test('a cursor the service did not issue is an ApiError 400 invalid_cursor', async () => {
    await assert.rejects(
      client.listPetsPage({ status: 'pending', cursor: 'not-one-of-ours' }),
      (error: ApiError) => error instanceof ApiError && error.status === 400 && error.code === 'invalid_cursor',
    );
  });
});

const INDEX = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/** tsc's errors for `code`, a module importing the client's index as `client`. */
function typeErrors(code: string): string[] {
  const dir = temporaryDir('client-types-');
  const file = join(dir, 'use.ts');
  writeFileSync(file, `import * as client from ${JSON.stringify(INDEX)};\n${code}\n`);
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === file)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

test('the types: listPetsPage takes a cursor and gives { pets, nextCursor }; listPets keeps its signature', () => {
  const good = `
    export async function walk(api: client.AnimalStoreClient): Promise<client.Pet[]> {
      const first: client.PetPage = await api.listPetsPage({ status: 'pending', limit: 2 });
      const pets: client.Pet[] = first.pets;
      const next: string | undefined = first.nextCursor;
      const query: client.ListOptions = { status: 'pending', limit: 2, cursor: 'abc' };
      const again: client.Pet[] = await api.listPets(query, { signal: AbortSignal.timeout(1000) });
      const bare: client.Pet[] = await api.listPets();
      return [...pets, ...again, ...bare, ...(next === undefined ? [] : await api.listPets({ cursor: next }))];
    }`;
  assert.deepEqual(typeErrors(good), []);
  for (const [bad, error] of [
    ['export const f = (api: client.AnimalStoreClient) => api.listPetsPage({ cursor: 1 });', /number.*not assignable to type 'string'/],
    ['export const f = async (api: client.AnimalStoreClient) => (await api.listPets()).nextCursor;', /Property 'nextCursor' does not exist/],
    ['export const f = async (api: client.AnimalStoreClient): Promise<string> => (await api.listPetsPage()).nextCursor;', /undefined.*not assignable/],
  ] as const) {
    assert.match(typeErrors(bad).join('\n'), error, bad);
  }
});

test('a next link without a cursor (another backend paging otherwise) is an ApiError, never taken for the last page', async () => {
  const api = createClient({
    baseUrl: 'http://api.test/v1',
    apiKey: 'k',
    fetch: async () => new Response('[]', { status: 200, headers: { 'content-type': 'application/json', link: '</v1/pets?page=2>; rel="next"' } }),
  });
  await assert.rejects(
    api.listPetsPage(),
    (error: ApiError) => error instanceof ApiError && error.code === 'unexpected_response' && /no cursor/.test(error.message),
  );
});
