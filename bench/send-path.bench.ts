/**
 * Send-path benchmark: accepted sends per second through POST /emails on MariaDB with durable
 * commit, against a bare Koa + mysql2 reference doing one INSERT per request, in the same run.
 *
 *   npm run bench:send            (MariaDB on 127.0.0.1:3306 as root; BENCH_TOTAL, BENCH_CONCURRENCY)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import knexFactory from 'knex';
import mysql from 'mysql2/promise';
import { startApiServer } from '../api/server.js';
import { createDomainSchema } from '../core/domains/domain.schemas.js';
import { createRuntime } from '../core/runtime.js';
import { loadConfig } from '../lib/config/load-config.js';
import { createLogger } from '../lib/logger.js';
import { postLoad } from './http-load.js';

const TOTAL = Number(process.env.BENCH_TOTAL ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const message = (i: number) => ({ from: 'Bench <bench@bench.test>', to: [`r${i}@example.net`], subject: `Benchmark message ${i}`, html: `<p>Hello ${i}</p>`.repeat(20), text: `Hello ${i}` });

async function dropDatabase(name: string) {
  const admin = knexFactory({ client: 'mysql2', connection: `${SERVER}/`, pool: { min: 0, max: 1 } });
  await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.destroy();
}

async function mailroom() {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
  const database = `mailroom_bench_${process.pid}`;
  const config = loadConfig({
    MAILROOM_CONFIG: '',
    MAILROOM_ENV: 'test',
    MAILROOM_LOG_LEVEL: 'silent',
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_DATABASE_URL: `${SERVER}/${database}`,
    MAILROOM_API_PORT: '0',
    MAILROOM_DNS_SERVERS: '127.0.0.1:1',
    // The operator-raised per-team rate: the spec's 10/s is the default, not a ceiling.
    MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
    MAILROOM_DATABASE_POOL_MAX: String(CONCURRENCY),
  });
  const runtime = await createRuntime(config, { logger: createLogger('silent') });
  const api = await startApiServer(runtime);
  const team = await runtime.services.teams.create({ name: 'Bench', planCode: 'unlimited' });
  await runtime.services.teams.setTier(team.id, 2);
  const view = await runtime.services.domains.create(team, createDomainSchema.parse({ name: 'bench.test' }));
  await runtime.db.knex('domains').where({ id: view.domain.id }).update({ status: 'verified' });
  const key = await runtime.services.apiKeys.create(team.id, { name: 'bench', permission: 'sending_access' });
  const result = await postLoad(`${api.url}/emails`, { authorization: `Bearer ${key.token}`, 'user-agent': 'bench' }, message, TOTAL, CONCURRENCY);
  await api.close();
  await runtime.close();
  await dropDatabase(database);
  rmSync(dataDir, { recursive: true, force: true });
  return result;
}

/** The reference: Koa, mysql2, one INSERT of the request per request, autocommit. */
async function reference() {
  const database = `mailroom_bench_ref_${process.pid}`;
  const admin = await mysql.createConnection({ uri: `${SERVER}/` });
  await admin.query(`CREATE DATABASE \`${database}\``);
  await admin.end();
  const pool = mysql.createPool({ uri: `${SERVER}/${database}`, connectionLimit: CONCURRENCY });
  await pool.query('CREATE TABLE emails (id CHAR(36) PRIMARY KEY, body MEDIUMTEXT NOT NULL, created_at DATETIME(3) NOT NULL)');
  const app = new Koa();
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const id = randomUUID();
    await pool.execute('INSERT INTO emails (id, body, created_at) VALUES (?, ?, NOW(3))', [id, Buffer.concat(chunks).toString('utf8')]);
    ctx.body = { id };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as { port: number }).port;
  const result = await postLoad(`http://127.0.0.1:${port}/emails`, { 'user-agent': 'bench' }, message, TOTAL, CONCURRENCY);
  server.close();
  await pool.end();
  await dropDatabase(database);
  return result;
}

const [flush] = (await (await mysql.createConnection({ uri: `${SERVER}/` })).query(`SHOW VARIABLES LIKE 'innodb_flush_log_at_trx_commit'`)) as unknown as [Array<{ Value: string }>];
console.log(`send-path benchmark: ${TOTAL} requests, concurrency ${CONCURRENCY}, innodb_flush_log_at_trx_commit=${flush[0]?.Value}`);
const ref = await reference();
console.log(`reference (Koa + mysql2, 1 INSERT/request): ${ref.perSecond.toFixed(0)} req/s in ${ref.seconds.toFixed(2)} s, failed ${ref.failed}`);
const ours = await mailroom();
console.log(`mailroom POST /emails (checks, MIME, fsynced spool, row + events, request log): ${ours.perSecond.toFixed(0)} sends/s in ${ours.seconds.toFixed(2)} s, failed ${ours.failed} ${JSON.stringify(ours.statuses)}`);
console.log(`ratio mailroom/reference: ${(ours.perSecond / ref.perSecond).toFixed(2)}`);
process.exit(0);
