import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig, maskConfig } from '../../../lib/config/load-config.js';

/**
 * The `ai` section: `none` by default; `openai-compatible` needs a base URL and a model (a clear
 * error naming them); the key comes from the environment only, is refused in the file without
 * being echoed, and is masked by `config print`; provider, base URL and model can come from the
 * environment too.
 */
const dir = mkdtempSync(join(tmpdir(), 'mailroom-ai-config-'));
const fileWith = (content: unknown) => {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
};

t.test('defaults: no provider', async (t) => {
  const { ai } = loadConfig({ MAILROOM_CONFIG: '' });
  t.same(ai, { provider: 'none', timeoutMs: 30_000, maxRetries: 1 });
});

t.test('openai-compatible from the file, the key from the environment', async (t) => {
  const file = fileWith({
    ai: { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' },
  });
  const local = loadConfig({ MAILROOM_CONFIG: file });
  t.match(local.ai, { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' });
  t.equal(local.ai.apiKey, undefined, 'a local server needs no key');
  const hosted = loadConfig({
    MAILROOM_CONFIG: '',
    MAILROOM_AI_PROVIDER: 'openai-compatible',
    MAILROOM_AI_BASE_URL: 'https://api.openai.com/v1',
    MAILROOM_AI_MODEL: 'gpt-4o-mini',
    MAILROOM_AI_API_KEY: 'sk-live-secret-value',
    MAILROOM_AI_TIMEOUT_MS: '20000',
  });
  t.match(hosted.ai, {
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    apiKey: 'sk-live-secret-value',
    timeoutMs: 20_000,
  });
  const printed = JSON.stringify(maskConfig(hosted));
  t.notMatch(printed, /sk-live-secret-value/, 'config print masks the key');
  t.match(printed, /"apiKey":"\*\*\*\*\*\*\*\*"/);
});

t.test('openai-compatible without a base URL or model stops start-up, naming both', async (t) => {
  t.throws(() => loadConfig({ MAILROOM_CONFIG: '', MAILROOM_AI_PROVIDER: 'openai-compatible' }), {
    name: 'ConfigError',
    message: /ai\.baseUrl.*set ai\.baseUrl[\s\S]*ai\.model.*set ai\.model/,
  });
  t.throws(
    () =>
      loadConfig({
        MAILROOM_CONFIG: fileWith({ ai: { provider: 'openai-compatible', baseUrl: 'ftp://x/v1', model: 'm' } }),
      }),
    {
      message: /ai\.baseUrl.*http or https/,
    },
  );
  t.throws(() => loadConfig({ MAILROOM_CONFIG: '', MAILROOM_AI_PROVIDER: 'anthropic' }), { message: /ai\.provider/ });
});

t.test('the key in the config file is refused, and not echoed', async (t) => {
  const file = fileWith({
    ai: { provider: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', model: 'm', apiKey: 'sk-in-file-9876' },
  });
  const err = (() => {
    try {
      loadConfig({ MAILROOM_CONFIG: file });
    } catch (e) {
      return e as Error;
    }
    return undefined;
  })();
  t.match(err, { name: 'ConfigError', message: /ai\.apiKey.*MAILROOM_AI_API_KEY/ });
  t.notMatch(err?.message ?? '', /sk-in-file-9876/);
});
