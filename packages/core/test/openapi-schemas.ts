import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { OPENAPI_FILE } from '../src/openapi/index.js';

/** Validators for the checked-in document's component schemas, to hold live answers against it. */
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
ajv.addSchema(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as object, 'openapi');

/** Throws with ajv's report unless `value` matches `components.schemas[name]`. */
export function assertMatchesSchema(name: 'Pet' | 'Pets' | 'NewPet' | 'Error', value: unknown): void {
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`);
  if (validate === undefined) throw new Error(`no schema ${name} in the document`);
  if (!validate(value)) throw new Error(`${name} mismatch: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value)}`);
}
