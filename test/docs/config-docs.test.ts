/**
 * docs/configuration.md is generated from the configuration schema by
 * scripts/generate-config-docs.ts; this fails while the page differs from what the script writes
 * now (a key added, a default or a comment changed without regenerating).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { configSchema, ENV_OVERRIDES } from '../../lib/config/config.schema.js';
import {
  COMPUTED_DEFAULTS,
  CONFIG_DOCS_FILE,
  configSections,
  renderConfigDocs,
  ROOT,
  SCHEMA_FILE,
} from '../../scripts/generate-config-docs.js';

const REGENERATE = 'run: node --import tsx scripts/generate-config-docs.ts';

t.test('docs/configuration.md is what the generator writes from the schema', async (t) => {
  const expected = await renderConfigDocs();
  const actual = readFileSync(join(ROOT, CONFIG_DOCS_FILE), 'utf8');
  if (actual === expected) return t.pass(`${CONFIG_DOCS_FILE} is current`);
  const actualLines = actual.split('\n');
  const expectedLines = expected.split('\n');
  const index = expectedLines.findIndex((line, i) => line !== actualLines[i]);
  const at = index === -1 ? expectedLines.length : index;
  t.fail(`${CONFIG_DOCS_FILE} is stale (${REGENERATE})`, {
    line: at + 1,
    found: actualLines[at] ?? '(end of file)',
    wanted: expectedLines[at] ?? '(end of file)',
  });
});

t.test('every key the schema accepts has a row, with its variable', async (t) => {
  const rows = configSections(readFileSync(join(ROOT, SCHEMA_FILE), 'utf8')).flatMap((section) => section.rows);
  const keys = new Set(rows.map((row) => row.key));
  // Every leaf of the parsed defaults (a full configuration) must be documented.
  const leaves = (value: unknown, path: string): string[] =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value).flatMap(([name, child]) => leaves(child, path ? `${path}.${name}` : name))
      : [path];
  const defaults = configSchema.parse({ masterKey: 'x'.repeat(32) });
  const documented = (key: string) =>
    keys.has(key) || keys.has(key.replace(/^mta\.regions\.[^.]+\./, 'mta.regions.<region>.'));
  for (const key of leaves(defaults, '')) t.ok(documented(key), `${key} has a row`);
  for (const [name, { key }] of Object.entries(ENV_OVERRIDES)) {
    const row = rows.find((candidate) => candidate.key === key);
    t.match(row?.env ?? '', name, `${key} names ${name}`);
  }
});

t.test('computed defaults are for keys the schema leaves unset', async (t) => {
  const rows = configSections(readFileSync(join(ROOT, SCHEMA_FILE), 'utf8')).flatMap((section) => section.rows);
  const defaults = configSchema.parse({ masterKey: 'x'.repeat(32) }) as Record<string, unknown>;
  const at = (path: string) =>
    path.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], defaults);
  for (const key of Object.keys(COMPUTED_DEFAULTS)) {
    t.ok(
      rows.some((row) => row.key === key),
      `${key} is a key`,
    );
    if (key !== 'masterKey' && key !== 'inbound.fblAddresses')
      t.equal(at(key), undefined, `${key} has no schema default`);
  }
});
