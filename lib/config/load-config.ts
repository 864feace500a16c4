import { existsSync, readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { configSchema, ENV_ONLY_KEYS, ENV_OVERRIDES, SECRET_KEYS, URL_KEYS, type Config } from './config.schema.js';

type Json = Record<string, unknown>;

const DEFAULT_FILES = ['./mailroom.json', '/etc/mailroom/mailroom.json'];

/**
 * Resolves the configuration: schema defaults < config file < environment. A bad value stops
 * start-up with a ConfigError naming the key (and the variable or file it came from).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, file?: string): Config {
  const path = file ?? env.MAILROOM_CONFIG ?? DEFAULT_FILES.find((candidate) => existsSync(candidate));
  const fromFile = path ? readConfigFile(path, Boolean(file ?? env.MAILROOM_CONFIG)) : {};
  if (path) refuseEnvOnlyKeys(fromFile, path);
  const merged = applyEnv(fromFile, env);
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path.join('.') || '(root)';
      const envName = Object.entries(ENV_OVERRIDES).find(([, o]) => o.key === key)?.[0];
      const source = envName && env[envName] !== undefined ? ` (from ${envName})` : path ? ` (from ${path})` : '';
      const unknown =
        issue.code === 'unrecognized_keys' ? `: unknown key(s) ${issue.keys.join(', ')}` : `: ${issue.message}`;
      return `  ${key}${source}${unknown}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/**
 * Secrets such as the payment provider's keys belong in the environment file (mode 0600, read by
 * systemd), never in mailroom.json, which is readable more widely and copied into backups and
 * tickets: one found there stops start-up, naming the key but never its value.
 */
function refuseEnvOnlyKeys(fromFile: Json, path: string): void {
  const found = ENV_ONLY_KEYS.filter((key) => getPath(fromFile, key) !== undefined);
  if (found.length === 0) return;
  const lines = found.map((key) => {
    const envName = Object.entries(ENV_OVERRIDES).find(([, o]) => o.key === key)?.[0];
    return `  ${key} (from ${path}): a secret is read from the environment only; set ${envName} in the environment file`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

function readConfigFile(path: string, required: boolean): Json {
  if (!existsSync(path)) {
    if (required) throw new ConfigError(`Invalid configuration: config file ${path} does not exist`);
    return {};
  }
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('top level must be an object');
    return value as Json;
  } catch (err) {
    throw new ConfigError(`Invalid configuration: ${path} is not valid JSON (${(err as Error).message})`);
  }
}

function applyEnv(base: Json, env: NodeJS.ProcessEnv): Json {
  const result: Json = structuredClone(base);
  for (const [name, override] of Object.entries(ENV_OVERRIDES)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(result, override.key, convert(name, override.key, raw, override.type));
  }
  return result;
}

function convert(name: string, key: string, raw: string, type: 'string' | 'number' | 'boolean' | 'list'): unknown {
  if (type === 'string') return raw;
  // Lists are comma-separated: MAILROOM_DNS_SERVERS=127.0.0.1:5353,10.0.0.2
  if (type === 'list')
    return raw
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  if (type === 'number') {
    const value = Number(raw);
    if (!Number.isFinite(value))
      throw new ConfigError(`Invalid configuration:\n  ${key} (from ${name}): expected a number, got "${raw}"`);
    return value;
  }
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`Invalid configuration:\n  ${key} (from ${name}): expected true or false, got "${raw}"`);
}

function setPath(target: Json, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (!next || typeof next !== 'object') node[part] = {};
    node = node[part] as Json;
  }
  node[parts[parts.length - 1]!] = value;
}

/** The configuration with secrets masked, for `mailroom config print`. */
export function maskConfig(config: Config): Json {
  const copy: Json = structuredClone(config) as Json;
  for (const key of SECRET_KEYS) if (getPath(copy, key) !== undefined) setPath(copy, key, '********');
  for (const key of URL_KEYS) {
    const value = getPath(copy, key);
    if (typeof value === 'string') setPath(copy, key, maskUrlPassword(value));
  }
  return copy;
}

function getPath(target: Json, dotted: string): unknown {
  return dotted
    .split('.')
    .reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Json)[part] : undefined), target);
}

export function maskUrlPassword(value: string): string {
  try {
    const url = new URL(value);
    if (!url.password) return value;
    url.password = '********';
    return url.toString();
  } catch {
    return value;
  }
}
