/**
 * Writes docs/configuration.md from the configuration schema: every key with its type, default,
 * environment variable and description. Types and defaults come from the zod schema itself
 * (z.toJSONSchema); descriptions are the `/** ... *\/` comments before each key in
 * lib/config/config.schema.ts, read with the TypeScript parser; variables come from ENV_OVERRIDES.
 *
 *   node --import tsx scripts/generate-config-docs.ts            write the page
 *   node --import tsx scripts/generate-config-docs.ts --check    exit 1 if the page is stale
 *   node --import tsx scripts/generate-config-docs.ts --missing  list keys without a comment of their own
 *
 * test/docs/config-docs.test.ts fails while the page differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';
import { z } from 'zod';
import { configSchema, ENV_OVERRIDES } from '../lib/config/config.schema.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_FILE = 'lib/config/config.schema.ts';
export const CONFIG_DOCS_FILE = 'docs/configuration.md';

/**
 * Defaults the schema leaves unset because start-up computes them (the code that does is named,
 * so a reader can check). The test requires each key here to exist and to have no schema default.
 */
export const COMPUTED_DEFAULTS: Record<string, string> = {
  masterKey: 'unset: development generates `<dataDir>/master.key` once (production refuses to start)',
  'redis.url': 'unset: the in-process store (one node only)',
  'api.publicUrl': '`http://127.0.0.1:<api.port>` (app/runtime.ts)',
  'inbound.port': '`25` in production, `2525` otherwise (inbound/inbound-server.ts)',
  'inbound.fblAddresses': '`fbl@<mta.hostname>` when the list is empty (core/receiving/receiving.services.ts)',
  'inbound.runDir': '`<dataDir>/inbound` (inbound/inbound-server.ts)',
  'submission.port': '`587` in production, `2587` otherwise (submission/submission-ports.ts)',
  'submission.tlsPort': '`465` in production, `2465` otherwise (submission/submission-ports.ts)',
  'accounts.signup': '`"closed"` in production, else `"open"` (core/accounts/accounts.services.ts)',
  'automations.concurrency': '`8` on MySQL, `1` on SQLite (core/automations/automations.services.ts)',
};

type JsonNode = {
  type?: string;
  properties?: Record<string, JsonNode>;
  required?: string[];
  items?: JsonNode;
  anyOf?: JsonNode[];
  enum?: unknown[];
  format?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
};

export type ConfigRow = {
  key: string;
  type: string;
  default: string;
  env: string;
  description: string;
  /** Whether the description is the key's own comment (false: a pointer, or none). */
  described: boolean;
};

export type ConfigSection = { name: string; rows: ConfigRow[] };

/** The `/** ... *\/` comment before each key, by dotted path (`[]` for the items of a list). */
export function readSchemaComments(source: string): Map<string, string> {
  const file = ts.createSourceFile(SCHEMA_FILE, source, ts.ScriptTarget.Latest, true);
  const constants = new Map<string, ts.VariableDeclaration>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations)
      if (ts.isIdentifier(declaration.name)) constants.set(declaration.name.text, declaration);
  }
  const comments = new Map<string, string>();
  const root = constants.get('configSchema')?.initializer;
  if (!root) throw new Error(`${SCHEMA_FILE}: no configSchema declaration`);

  const visit = (expr: ts.Expression, path: string): void => {
    if (ts.isParenthesizedExpression(expr)) return visit(expr.expression, path);
    if (ts.isIdentifier(expr)) {
      const declaration = constants.get(expr.text);
      if (!declaration?.initializer) return;
      // A named part (egressAddress, dnsUpdateZone) may carry its comment on its declaration.
      const doc = docComment(source, declaration.parent.parent);
      if (doc && !comments.has(path)) comments.set(path, doc);
      return visit(declaration.initializer, path);
    }
    if (!ts.isCallExpression(expr) || !ts.isPropertyAccessExpression(expr.expression)) return;
    const method = expr.expression.name.text;
    const target = expr.expression.expression;
    const [first] = expr.arguments;
    if (!(ts.isIdentifier(target) && target.text === 'z')) return visit(target, path); // .strict(), .default()...
    if (method === 'object' && first && ts.isObjectLiteralExpression(first)) return visitObject(first, path);
    if (method === 'array' && first) return visit(first, `${path}[]`);
    if (method === 'union' && first && ts.isArrayLiteralExpression(first))
      for (const element of first.elements) visit(element, path);
  };
  const visitObject = (object: ts.ObjectLiteralExpression, path: string): void => {
    for (const property of object.properties) {
      if (!ts.isPropertyAssignment(property)) continue;
      const name = ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) ? property.name.text : null;
      if (name === null) continue;
      const key = path ? `${path}.${name}` : name;
      const doc = docComment(source, property);
      if (doc) comments.set(key, doc);
      visit(property.initializer, key);
    }
  };
  visit(root, '');
  return comments;
}

function docComment(source: string, node: ts.Node): string | null {
  const ranges = ts.getLeadingCommentRanges(source, node.getFullStart()) ?? [];
  const docs = ranges.map((range) => source.slice(range.pos, range.end)).filter((text) => text.startsWith('/**'));
  const last = docs[docs.length - 1];
  if (!last) return null;
  return last
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*(?!\/)\s?/, '').trim())
    .filter(Boolean)
    .join(' ');
}

/** The schema's keys by section, in schema order. */
export function configSections(source: string): ConfigSection[] {
  const walker = new SchemaWalker(readSchemaComments(source));
  const input = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as JsonNode;
  // Defaults are output values: the input form drops a default whose schema transforms (dns.updateZones).
  const output = z.toJSONSchema(configSchema, { io: 'output', unrepresentable: 'any' }) as JsonNode;
  const sections: ConfigSection[] = [{ name: '', rows: [] }];
  for (const [name, node] of Object.entries(input.properties ?? {})) {
    const out = output.properties?.[name];
    if (node.type === 'object' && node.properties) {
      const section: ConfigSection = { name, rows: [] };
      sections.push(section);
      walker.walkObject(section.rows, node, out, name, null);
    } else walker.walkValue(sections[0]!.rows, node, out, name, null, false);
  }
  for (const [name, { key }] of Object.entries(ENV_OVERRIDES))
    if (!walker.seen.has(key)) throw new Error(`${SCHEMA_FILE}: ${name} names ${key}, which the schema does not have`);
  for (const key of Object.keys(COMPUTED_DEFAULTS))
    if (!walker.seen.has(key))
      throw new Error(`scripts/generate-config-docs.ts: COMPUTED_DEFAULTS names ${key}, not in the schema`);
  return sections;
}

/** Turns the JSON Schema of the configuration into rows; `pointer` is the nearest described key above. */
class SchemaWalker {
  readonly seen = new Set<string>();
  private readonly envByKey = new Map(
    Object.entries(ENV_OVERRIDES).map(([name, { key, type }]) => [key, { name, type }]),
  );

  constructor(private readonly comments: Map<string, string>) {}

  walkObject(rows: ConfigRow[], node: JsonNode, out: JsonNode | undefined, path: string, pointer: string | null): void {
    const entries = Object.entries(node.properties ?? {});
    const [template] = entries;
    if (template && alikeChildren(node, this.comments, path)) {
      // Identical entries (one per region) are documented once, under a placeholder name.
      const placeholder = join2(path, `<${(path.split('.').pop() ?? path).replace(/s$/, '')}>`);
      for (const [key, text] of commentsUnder(this.comments, join2(path, template[0])))
        this.comments.set(`${placeholder}${key}`, text);
      const parent = rows[rows.length - 1];
      const names = entries.map(([name]) => `\`${name}\``).join(', ');
      if (parent?.key === path) parent.type = `object: one entry each for ${names}`;
      return this.walkValue(rows, template[1], out?.properties?.[template[0]], placeholder, pointer, false);
    }
    let previous = pointer;
    for (const [name, child] of entries) {
      const key = join2(path, name);
      this.walkValue(rows, child, out?.properties?.[name], key, previous, node.required?.includes(name) ?? false);
      if (this.comments.has(key)) previous = key;
    }
  }

  walkValue(
    rows: ConfigRow[],
    node: JsonNode,
    out: JsonNode | undefined,
    key: string,
    pointer: string | null,
    required: boolean,
  ): void {
    const below = this.comments.has(key) ? key : pointer;
    if (node.type === 'object' && node.properties) {
      if (this.comments.has(key) || alikeChildren(node, this.comments, key))
        this.emit(rows, key, node, out, { type: 'object', default: '' }, pointer, required);
      return this.walkObject(rows, node, out, key, below);
    }
    this.emit(rows, key, node, out, {}, pointer, required);
    const items = objectOption(node.items);
    if (node.type === 'array' && items) this.walkObject(rows, items, objectOption(out?.items), `${key}[]`, below);
  }

  private emit(
    rows: ConfigRow[],
    key: string,
    node: JsonNode,
    out: JsonNode | undefined,
    extra: Partial<ConfigRow>,
    pointer: string | null,
    required: boolean,
  ): void {
    const env = this.envByKey.get(key);
    this.seen.add(key);
    rows.push({
      key,
      type: typeText(node),
      default: defaultText(key, out?.default, required),
      env: env ? `\`${env.name}\`${env.type === 'list' ? ' (comma-separated)' : ''}` : 'file only',
      ...this.describe(key, pointer),
      ...extra,
    });
  }

  private describe(key: string, pointer: string | null): Pick<ConfigRow, 'description' | 'described'> {
    const own = this.comments.get(key);
    if (own) return { description: own, described: true };
    const items = this.comments.get(`${key}[]`);
    if (items)
      return { description: `Each item: ${items.replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase())}`, described: true };
    return { description: pointer ? `See \`${pointer}\`.` : 'No description in the schema.', described: false };
  }
}

function join2(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** The comments at and below a path, as [path relative to it, text]. */
function commentsUnder(comments: Map<string, string>, path: string): Array<[string, string]> {
  return [...comments]
    .filter(([key]) => key === path || key.startsWith(`${path}.`) || key.startsWith(`${path}[]`))
    .map(([key, text]): [string, string] => [key.slice(path.length), text])
    .sort(([a], [b]) => a.localeCompare(b));
}

/** Whether an object's entries are all alike: the same schema and the same comments. */
function alikeChildren(node: JsonNode, comments: Map<string, string>, path: string): boolean {
  const entries = Object.entries(node.properties ?? {});
  const shape = ([name, child]: [string, JsonNode]) =>
    JSON.stringify([child, commentsUnder(comments, join2(path, name)), comments.has(join2(path, name))]);
  const first = entries[0];
  return entries.length > 1 && first !== undefined && entries.every((entry) => shape(entry) === shape(first));
}

/** A node that is an object, or the object option of a union (an egress address or { address, helo, weight }). */
function objectOption(node: JsonNode | undefined): JsonNode | undefined {
  if (!node) return undefined;
  if (node.type === 'object' && node.properties) return node;
  return node.anyOf?.find((option) => option.type === 'object' && option.properties);
}

const SAFE = Number.MAX_SAFE_INTEGER;

function typeText(node: JsonNode): string {
  if (node.anyOf) return node.anyOf.map(typeText).join(', or ');
  if (node.enum) return `one of ${node.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ')}`;
  switch (node.type) {
    case 'string': {
      const parts = ['string'];
      if (node.format) parts.push(`(${node.format})`);
      if (node.minLength !== undefined && node.minLength > 1) parts.push(`of ${node.minLength}+ characters`);
      return parts.join(' ');
    }
    case 'integer':
    case 'number': {
      const min = node.minimum !== undefined && node.minimum > -SAFE ? node.minimum : undefined;
      const max = node.maximum !== undefined && node.maximum < SAFE ? node.maximum : undefined;
      const range =
        min !== undefined && max !== undefined
          ? `${min} to ${max}`
          : min !== undefined
            ? `>= ${min}`
            : max !== undefined
              ? `<= ${max}`
              : '';
      return range ? `${node.type}, ${range}` : node.type;
    }
    case 'array': {
      const items = node.items ? typeText(node.items) : 'any';
      const least = node.minItems ? `, at least ${node.minItems}` : '';
      // "number, >= 0" becomes "numbers (>= 0)"; a choice of types is bracketed whole.
      const [base = items, range] = items.includes(', or ') ? [`(${items})`] : items.split(/, (.*)/);
      const plural = `${base.replace(/^(string|object|integer|number|boolean)\b/, '$1s')}${range ? ` (${range})` : ''}`;
      return `list of ${plural}${least}`;
    }
    case 'boolean':
      return 'boolean';
    case 'object':
      return 'object';
    default:
      return 'any';
  }
}

function defaultText(key: string, value: unknown, required: boolean): string {
  const computed = COMPUTED_DEFAULTS[key];
  if (value === undefined) return computed ?? (required ? 'required' : 'unset');
  const hint = typeof value === 'number' ? unitHint(key, value) : '';
  return `\`${JSON.stringify(value)}\`${hint ? ` (${hint})` : ''}`;
}

/** A reading aid for large round numbers: 52428800 bytes is 50 MiB, 259200 seconds 3 days. */
function unitHint(key: string, value: number): string {
  const name = key.split('.').pop() ?? key;
  const units: Array<[number, string]> = name.endsWith('Bytes')
    ? [
        [1024 * 1024, 'MiB'],
        [1024, 'KiB'],
      ]
    : name.endsWith('Seconds')
      ? [
          [86400, 'days'],
          [3600, 'hours'],
          [60, 'minutes'],
        ]
      : name.endsWith('Ms')
        ? [
            [3_600_000, 'hours'],
            [60_000, 'minutes'],
            [1000, 's'],
          ]
        : [];
  for (const [size, unit] of units)
    if (value >= size && value % size === 0) {
      const count = value / size;
      return `${count} ${count === 1 && unit !== 's' ? unit.replace(/s$/, '') : unit}`;
    }
  return '';
}

/** Table-cell text: pipes escaped everywhere; outside code spans, `<` and `*` escaped too. */
function cell(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/\*/g, '\\*')))
    .join('')
    .replace(/\|/g, '\\|');
}

const INTRO = `# Configuration

<!-- Generated by scripts/generate-config-docs.ts from lib/config/config.schema.ts: do not edit by hand.
Run \`node --import tsx scripts/generate-config-docs.ts\` after changing the schema; test/docs/config-docs.test.ts
fails while this page is stale. -->

Every configuration key of a Mailroom node: its type, its default, the environment variable that
sets it (if any) and what it does. This page is generated from the schema,
[\`lib/config/config.schema.ts\`](../lib/config/config.schema.ts), whose comments are the descriptions below.

## Where values come from

Sources, later winning: the schema's defaults, a JSON file, environment variables.

- **The file**: \`MAILROOM_CONFIG\` names it (it must exist), else \`./mailroom.json\`, else
  \`/etc/mailroom/mailroom.json\` (either only if present). Its top level is an object shaped like the
  sections below; an unknown key is refused.
- **Environment variables** (\`MAILROOM_*\`, listed per key below and in
  [Environment variables](#environment-variables)): an empty variable is ignored; numbers must be
  finite; booleans accept \`1\`, \`true\`, \`yes\`, \`on\` and \`0\`, \`false\`, \`no\`, \`off\`; lists are
  comma-separated (\`MAILROOM_DNS_SERVERS=127.0.0.1:5353,10.0.0.2\`). Keys marked "file only" have
  no variable.
- A bad value stops start-up with a message naming the key and where it came from (the variable
  or the file); the command exits with code 2.
- \`mailroom config print\` prints the resolved configuration with secrets masked (\`masterKey\`, and the
  password in \`database.url\` and \`redis.url\`).

Example \`/etc/mailroom/mailroom.json\`:

\`\`\`json
{
  "env": "production",
  "dataDir": "/var/lib/mailroom",
  "database": { "url": "mysql://mailroom:secret@127.0.0.1:3306/mailroom" },
  "redis": { "url": "redis://127.0.0.1:6379/0" },
  "api": { "host": "0.0.0.0", "port": 3000, "publicUrl": "https://mail-api.example.com" }
}
\`\`\`

A default marked "unset" means the key is absent unless given; where start-up then computes a
value, the default column says what it is. "See \`key\`" points at the nearest key whose comment
covers this one (the schema comments some keys in pairs or groups).
`;

/** The whole page, formatted as prettier formats Markdown in this repository. */
export async function renderConfigDocs(): Promise<string> {
  const source = readFileSync(join(ROOT, SCHEMA_FILE), 'utf8');
  const sections = configSections(source);
  const lines: string[] = [INTRO, '## Sections', ''];
  for (const section of sections) {
    const title = section.name ? `\`${section.name}\`` : 'General';
    const anchor = section.name ? section.name.toLowerCase() : 'general';
    lines.push(`- [${title}](#${anchor})`);
  }
  lines.push('- [Environment variables](#environment-variables)', '');
  for (const section of sections) {
    lines.push(`## ${section.name ? `\`${section.name}\`` : 'General'}`, '');
    lines.push('| key | type | default | environment | description |', '| --- | --- | --- | --- | --- |');
    for (const row of section.rows)
      lines.push(
        `| \`${row.key}\` | ${cell(row.type)} | ${row.default ? cell(row.default) : ''} | ${row.env} | ${cell(row.description)} |`,
      );
    lines.push('');
  }
  lines.push('## Environment variables', '', '| variable | key | read as |', '| --- | --- | --- |');
  for (const [name, { key, type }] of Object.entries(ENV_OVERRIDES).sort(([a], [b]) => a.localeCompare(b)))
    lines.push(`| \`${name}\` | \`${key}\` | ${type === 'list' ? 'list (comma-separated)' : type} |`);
  lines.push('', '`MAILROOM_CONFIG` names the configuration file (see above).', '');
  const file = join(ROOT, CONFIG_DOCS_FILE);
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(lines.join('\n'), { ...options, filepath: file });
}

/** Keys whose description is not a comment of their own (for the report, and the test's notice). */
export function keysWithoutComments(): string[] {
  const source = readFileSync(join(ROOT, SCHEMA_FILE), 'utf8');
  return configSections(source)
    .flatMap((section) => section.rows)
    .filter((row) => !row.described)
    .map((row) => row.key);
}

async function main(args: string[]): Promise<number> {
  if (args.includes('--missing')) {
    for (const key of keysWithoutComments()) console.log(key);
    return 0;
  }
  const page = await renderConfigDocs();
  const file = join(ROOT, CONFIG_DOCS_FILE);
  if (args.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // missing: stale
    }
    if (current === page) return 0;
    console.error(`${CONFIG_DOCS_FILE} is stale: run node --import tsx scripts/generate-config-docs.ts`);
    return 1;
  }
  writeFileSync(file, page);
  console.error(`wrote ${CONFIG_DOCS_FILE}`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
