import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv';
import formatsModule from 'ajv-formats';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// Both are CommonJS modules whose export is also their `default`.
const Ajv = AjvModule.default;
const addFormats = formatsModule.default;

/**
 * A validator of RFC 8460 report JSON against test/fixtures/tlsrpt-schema.json (written from the
 * RFC's section 4.4); its `errors` say what failed.
 */
export function tlsReportValidator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(join(ROOT, 'test/fixtures/tlsrpt-schema.json'), 'utf8')) as object);
}
