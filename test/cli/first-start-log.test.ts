import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { createRuntime, type Runtime } from '../../app/runtime.js';
import { migrations } from '../../db/migrations/index.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { startSubmissionServer } from '../../submission/submission-server.js';
import { commandEnv } from '../helpers/process-env.js';
import { createTestDatabase } from '../helpers/test-database.js';

/**
 * Issue 32, what a first start prints: one summary line for the migrations (not one name per
 * line on a terminal), and one logger line, naming the settings, for a submission server without
 * a certificate (not smtp-server's own raw line on stderr beside the JSON log).
 */
type Line = { level: number; msg: string; [field: string]: unknown };

/** A pino logger whose lines (every level) land in `lines`. */
function capturedLogger() {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text.trim()) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

const database = createTestDatabase();
t.teardown(() => database.drop());
const config = loadConfig(
  commandEnv(database, { MAILROOM_ENV: 'test', MAILROOM_LOG_LEVEL: 'info', MAILROOM_DNS_SERVERS: '127.0.0.1:1' }),
);

let runtime: Runtime | undefined;
t.teardown(() => runtime?.close());

t.test('the first start: one line for every migration applied', async (t) => {
  const { logger, lines } = capturedLogger();
  runtime = await createRuntime(config, { logger });
  const latest = migrations.at(-1)!.name;
  const info = lines.filter((line) => line.level === 30 && /migrat/.test(line.msg));
  t.same(
    info.map((line) => line.msg),
    [`database: applied ${migrations.length} migrations (latest ${latest})`],
    'a single summary line at info',
  );
  t.match(info[0], { applied: migrations.length, latest });
  t.notOk(
    lines.some((line) => line.level >= 30 && JSON.stringify(line).includes(migrations[0]!.name)),
    'no migration names at info and above',
  );
  t.match(
    lines.find((line) => line.level === 20 && /migrations applied/.test(line.msg)),
    { migrations: migrations.map((migration) => migration.name) },
    'the names are there at debug',
  );
  await runtime.close();
  runtime = undefined;

  const again = capturedLogger();
  runtime = await createRuntime(config, { logger: again.logger });
  t.same(
    again.lines.filter((line) => /migrat/.test(line.msg)),
    [],
    'nothing to apply, nothing said',
  );
});

t.test('no certificate: one warning line naming the settings, nothing raw on stdout or stderr', async (t) => {
  runtime ??= await createRuntime(config, { logger: capturedLogger().logger });
  const { logger, lines } = capturedLogger();
  const raw: string[] = [];
  const original = {
    stdout: process.stdout.write.bind(process.stdout),
    stderr: process.stderr.write.bind(process.stderr),
    error: console.error,
    warn: console.warn,
    log: console.log,
  };
  const catchRaw = (chunk: unknown) => {
    raw.push(String(chunk));
    return true;
  };
  process.stdout.write = catchRaw as typeof process.stdout.write;
  process.stderr.write = catchRaw as typeof process.stderr.write;
  console.error = console.warn = console.log = (...args: unknown[]) => void raw.push(args.join(' '));
  let server: Awaited<ReturnType<typeof startSubmissionServer>> | undefined;
  try {
    server = await startSubmissionServer({
      ...runtime,
      config: { ...runtime.config, submission: { ...runtime.config.submission, port: 0, tlsPort: 0 } },
      logger,
    });
  } finally {
    process.stdout.write = original.stdout;
    process.stderr.write = original.stderr;
    Object.assign(console, { error: original.error, warn: original.warn, log: original.log });
  }
  t.teardown(() => server?.close());
  t.same(raw, [], 'smtp-server wrote nothing of its own');
  const warnings = lines.filter((line) => line.level >= 40);
  t.equal(warnings.length, 1, 'exactly one warning');
  t.match(warnings[0], {
    msg: /^submission: no certificate configured: .*built-in certificate, whose private key is public.*set submission\.certFile and submission\.keyFile$/,
    settings: ['submission.certFile', 'submission.keyFile'],
  });
});
