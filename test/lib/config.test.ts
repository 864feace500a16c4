import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig, maskConfig } from '../../lib/config/load-config.js';

const dir = mkdtempSync(join(tmpdir(), 'mailroom-config-'));
const noFile = { MAILROOM_CONFIG: '' };

t.test('defaults', async (t) => {
  const config = loadConfig({ ...noFile });
  t.equal(config.database.url, 'sqlite://./data/mailroom.sqlite');
  t.equal(config.redis.url, undefined);
  t.equal(config.api.port, 3000);
  t.equal(config.dataDir, './data');
  t.equal(config.api.rateLimitPerSecond, 10);
});

t.test('file, then environment', async (t) => {
  const file = join(dir, 'mailroom.json');
  writeFileSync(
    file,
    JSON.stringify({ api: { port: 4000 }, database: { url: 'mysql://root@127.0.0.1:3306/mailroom' } }),
  );
  const fromFile = loadConfig({ MAILROOM_CONFIG: file });
  t.equal(fromFile.api.port, 4000);
  t.equal(fromFile.database.url, 'mysql://root@127.0.0.1:3306/mailroom');
  const overridden = loadConfig({
    MAILROOM_CONFIG: file,
    MAILROOM_API_PORT: '5000',
    MAILROOM_REDIS_URL: 'redis://127.0.0.1:6379',
    MAILROOM_DATA_DIR: '/var/lib/mailroom',
  });
  t.equal(overridden.api.port, 5000);
  t.equal(overridden.redis.url, 'redis://127.0.0.1:6379');
  t.equal(overridden.dataDir, '/var/lib/mailroom');
});

t.test('a bad value stops start-up with a message naming the key', async (t) => {
  t.throws(() => loadConfig({ MAILROOM_API_PORT: 'eighty' }), { message: /api\.port \(from MAILROOM_API_PORT\)/ });
  t.throws(() => loadConfig({ MAILROOM_API_PORT: '70000' }), { message: /api\.port \(from MAILROOM_API_PORT\)/ });
  t.throws(() => loadConfig({ MAILROOM_ENV: 'staging' }), { message: /env \(from MAILROOM_ENV\)/ });
  t.throws(() => loadConfig({ MAILROOM_TRUST_PROXY: 'maybe' }), { message: /api\.trustProxy/ });
  t.throws(() => loadConfig({ MAILROOM_MASTER_KEY: 'short' }), { message: /masterKey/ });
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ api: { prot: 1 } }));
  t.throws(() => loadConfig({ MAILROOM_CONFIG: bad }), { message: /api.*unknown key\(s\) prot/ });
  writeFileSync(bad, '{ not json');
  t.throws(() => loadConfig({ MAILROOM_CONFIG: bad }), { name: 'ConfigError', message: /not valid JSON/ });
  t.throws(() => loadConfig({ MAILROOM_CONFIG: join(dir, 'nope.json') }), { message: /does not exist/ });
});

t.test('config print masks secrets and URL passwords', async (t) => {
  const config = loadConfig({
    MAILROOM_MASTER_KEY: 'k'.repeat(40),
    MAILROOM_DATABASE_URL: 'mysql://mailroom:s3cret@db:3306/mailroom',
    MAILROOM_REDIS_URL: 'redis://:redispw@cache:6379',
  });
  const printed = JSON.stringify(maskConfig(config));
  t.notMatch(printed, /kkkk|s3cret|redispw/);
  t.match(printed, /mysql:\/\/mailroom:\*+@db:3306\/mailroom/);
});
