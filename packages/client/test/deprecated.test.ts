import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const INDEX = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/** The JSDoc tags an editor sees on each method of the exported `AnimalStoreClient`. */
function clientMethodTags(): Map<string, string[]> {
  const program = ts.createProgram([INDEX], {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(INDEX);
  assert.ok(source !== undefined);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  assert.ok(moduleSymbol !== undefined);
  const exported = checker.getExportsOfModule(moduleSymbol).find((symbol) => symbol.name === 'AnimalStoreClient');
  assert.ok(exported !== undefined, 'index.ts exports AnimalStoreClient');
  const type = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(exported));
  return new Map(type.getProperties().map((property) => [property.name, property.getJsDocTags(checker).map((tag) => tag.name)]));
}

/** The declaration files tsc emits for the package, in memory, one after another. */
function emittedDeclaration(): string {
  const program = ts.createProgram([INDEX], {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    declaration: true,
    emitDeclarationOnly: true,
  });
  let text = '';
  program.emit(undefined, (name, data) => {
    if (name.endsWith('.d.ts')) text += data;
  });
  return text;
}

test('getPet is @deprecated, so editors strike it through; no other method is', () => {
  const tags = clientMethodTags();
  assert.deepEqual(tags.get('getPet'), ['deprecated']);
  for (const [name, names] of tags) if (name !== 'getPet') assert.ok(!names.includes('deprecated'), `${name} is not deprecated`);
});

test('the published declaration keeps the @deprecated tag on getPet', () => {
  const declaration = emittedDeclaration();
  // The tag sits in the comment that ends right before `getPet(`.
  assert.match(declaration, /@deprecated(?:(?!\*\/)[\s\S])*\*\/\s*getPet\(/);
});
