import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { request } from '../helpers/http.js';
import { receiveMessage, receivingDomain, storedRaw } from '../helpers/received-mail.js';
import { spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';
import { startTestApp } from '../helpers/test-app.js';
import { TEST_DB_KIND } from '../helpers/test-database.js';

/**
 * `mailroom backup --to DIR` and `mailroom restore --from DIR`, through the real command: an
 * appliance with sent emails (html, text, an attachment) and a received one, backed up WHILE it
 * keeps accepting mail, restored into a fresh data dir (and, on SQLite, a fresh database file),
 * and every email found with its bodies by an appliance started on the restored copy.
 *
 * On MariaDB/MySQL (MAILROOM_TEST_DATABASE_URL=mysql://...) the backup holds no database: it says
 * so (use mariadb-dump) and copies the files only. The test then does what the note asks: a
 * mariadb-dump --single-transaction before `mailroom backup` (mail still flowing), loaded into a
 * fresh database with the mariadb client, and an appliance on that database and the restored
 * data dir must find every body there.
 */
const run = promisify(execFile);
const SQLITE = TEST_DB_KIND === 'sqlite';
// About fifteen `mailroom` processes, each starting tsx: more than the default file timeout on a busy machine.
t.setTimeout(6 * 60_000);

/** Client options of a mysql:// URL for mariadb-dump and mariadb, and its database name. */
function mysqlClient(url: string): { args: string[]; database: string } {
  const parsed = new URL(url);
  return {
    args: [
      '-h',
      parsed.hostname,
      '-P',
      parsed.port || '3306',
      '-u',
      decodeURIComponent(parsed.username || 'root'),
      ...(parsed.password ? [`-p${decodeURIComponent(parsed.password)}`] : []),
    ],
    database: decodeURIComponent(parsed.pathname.slice(1)),
  };
}

const app = await startTestApp();
t.teardown(() => app.close());
const root = mkdtempSync(join(tmpdir(), 'mailroom-backup-test-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

/** The environment of a `mailroom` process on a data dir and database. */
function envFor(dataDir: string, databaseUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MAILROOM_CONFIG: '',
    MAILROOM_ENV: 'test',
    MAILROOM_LOG_LEVEL: 'info',
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_DATABASE_URL: databaseUrl,
    MAILROOM_API_PORT: '0',
    MAILROOM_SUBMISSION_PORT: '0',
    MAILROOM_INBOUND_PORT: '0',
    MAILROOM_METRICS_PORT: '0',
    MAILROOM_DNS_SERVERS: '127.0.0.1:1',
    MAILROOM_RATE_LIMIT_PER_SECOND: '100000',
  };
  delete env.MAILROOM_REDIS_URL;
  delete env.MAILROOM_MASTER_KEY;
  return env;
}

type Outcome = { code: number; stdout: string; stderr: string };
/** Runs `mailroom ...args`; a non-zero exit is an outcome to assert, not a throw. */
async function mailroom(args: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/mailroom.js', ...args], {
      env: { ...env, MAILROOM_FROM_SOURCE: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failure = err as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

const sourceDataDir = app.runtime.config.dataDir;
const sourceDatabaseUrl = app.runtime.config.database.url;
const sourceEnv = envFor(sourceDataDir, sourceDatabaseUrl);

// --- The appliance's content: sent emails (html, text, attachment) and a received email. ---
const { teamId, token } = await app.createTeam('Backup team', 'pro');
// A domain that sends and receives (its MX marked found); tier 2 sends to anyone.
const inbox = await receivingDomain(app, teamId, 'backup.test');
await app.runtime.services.teams.setTier(teamId, 2);

type Sent = { id: string; subject: string; html?: string; text?: string; attachment?: Buffer };
const sent: Sent[] = [];
async function send(index: number, withAttachment = false): Promise<Sent> {
  const email: Sent = {
    id: '',
    subject: `Backup check ${index}`,
    html: `<p>Message <b>${index}</b> ${'x'.repeat(index * 50)}</p>`,
    text: `Message ${index}, plain ${'y'.repeat(index * 30)}`,
  };
  if (index % 3 === 1) delete email.html;
  if (withAttachment) email.attachment = Buffer.from(`id,amount\n${index},${index * 100}\n`.repeat(200));
  const response = await request(app.url, '/emails', {
    method: 'POST',
    token,
    body: {
      from: 'Backups <reports@backup.test>',
      to: [`user${index}@example.com`],
      subject: email.subject,
      ...(email.html ? { html: email.html } : {}),
      text: email.text,
      ...(email.attachment
        ? { attachments: [{ filename: 'report.csv', content: email.attachment.toString('base64') }] }
        : {}),
    },
  });
  if (response.status !== 200) throw new Error(`send ${index}: ${response.status} ${response.text}`);
  email.id = response.body.id;
  return email;
}
for (let i = 0; i < 6; i++) sent.push(await send(i, i === 2 || i === 4));

const receivedRaw = [
  `From: Customer <customer@sender.test>`,
  `To: support@${inbox}`,
  `Subject: Where is my order?`,
  `Message-ID: <order-42@sender.test>`,
  `MIME-Version: 1.0`,
  `Content-Type: text/plain; charset=utf-8`,
  ``,
  `Order 42 has not arrived.`,
  ``,
].join('\r\n');
const intake = await receiveMessage(app, { from: 'customer@sender.test', to: [`support@${inbox}`], raw: receivedRaw });
const receivedId = intake.received[0]!.id;

/** What the source appliance itself returns for an email: the restored copy must return the same. */
const originals = new Map<string, Record<string, unknown>>();
for (const email of sent) originals.set(email.id, (await request(app.url, `/emails/${email.id}`, { token })).body);

const backupDir = join(root, 'backup');
let backupResult: Record<string, any>;
/** Emails sent while the backup runs: any of them the snapshot holds must restore whole. */
const duringBackup: Sent[] = [];
/**
 * On MySQL/MariaDB the operator's part, as the backup's note says: mariadb-dump (one consistent
 * transaction) taken BEFORE `mailroom backup`, restored into a fresh database next to the
 * restored data dir.
 */
const mysqlDump = join(root, 'mailroom.sql');
const restoredMysqlUrl = (() => {
  if (SQLITE) return '';
  const url = new URL(sourceDatabaseUrl);
  url.pathname = `/${mysqlClient(sourceDatabaseUrl).database}_restored`;
  return url.toString();
})();
if (!SQLITE)
  t.teardown(async () => {
    const { args, database } = mysqlClient(restoredMysqlUrl);
    await run('mariadb', [...args, '-e', `DROP DATABASE IF EXISTS \`${database}\``]).catch(() => undefined);
  });

t.test('backup --to DIR: a consistent copy taken while the appliance accepts mail', async (t) => {
  let sending = true;
  const traffic = (async () => {
    // Until the backup command exits: its snapshot is taken in the middle of this traffic.
    for (let i = 100; sending && i < 300; i++) duringBackup.push(await send(i, i % 5 === 0));
  })();
  if (!SQLITE) {
    while (duringBackup.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    const { args, database } = mysqlClient(sourceDatabaseUrl);
    await run('mariadb-dump', [...args, '--single-transaction', `--result-file=${mysqlDump}`, database]);
  }
  const outcome = await mailroom(['backup', '--to', backupDir], sourceEnv);
  sending = false;
  await traffic;
  t.equal(outcome.code, 0, `exit 0 (stderr: ${outcome.stderr})`);
  backupResult = JSON.parse(outcome.stdout);
  const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));

  const segments = readdirSync(join(backupDir, 'data', 'spool'));
  t.ok(segments.length >= 1 && segments.every((name) => /^seg-.+\.spool$/.test(name)), 'spool segments copied');
  t.match(
    storedRaw(join(backupDir, 'data'), intake.received[0]!.rawBlob!)?.toString('utf8'),
    /Order 42 has not arrived\./,
    'the raw received message copied (a record of a copied spool segment)',
  );
  t.equal(
    readFileSync(join(backupDir, 'data', 'master.key'), 'utf8'),
    readFileSync(join(sourceDataDir, 'master.key'), 'utf8'),
    'the master key copied (the restored appliance must read what it sealed)',
  );

  t.match(backupResult, {
    to: backupDir,
    spool_segments: segments.length,
    blobs: 0,
    references: { emails: Number, attachments: Number, received_raw: 1, brand_assets: 0 },
  });
  t.ok(backupResult.references.emails >= sent.length, 'every email sent before the backup is in it');
  t.ok(backupResult.references.emails <= sent.length + duringBackup.length);
  t.ok(backupResult.references.attachments >= 2, 'the attachments of the emails sent before are in it');
  t.equal(manifest.files.length, backupResult.files, 'the manifest lists every file');
  t.equal(
    backupResult.bytes,
    manifest.files.reduce((sum: number, file: { size: number }) => sum + file.size, 0),
  );
  t.ok(
    manifest.files.every((file: { sha256: string }) => /^[0-9a-f]{64}$/.test(file.sha256)),
    'every file has its SHA-256',
  );
  t.same(manifest.references, backupResult.references);

  const progress = outcome.stderr.split('\n').filter((line) => line.startsWith('backup: '));
  const fileCount = SQLITE ? backupResult.files - 1 : backupResult.files;
  t.match(progress.at(-1), new RegExp(`^backup: ${fileCount}/${fileCount} files, (\\d+)/\\1 bytes$`), 'final progress');
  if (SQLITE) {
    t.match(backupResult.database, { kind: 'sqlite', file: 'database/mailroom.sqlite' });
    t.equal(backupResult.files, 1 + 1 + segments.length, 'database, master key, segments (the raw message among them)');
    t.match(progress[0], /^backup: copying the SQLite database /, 'progress on stderr');
    t.ok(
      progress.some((line) => /^backup: database copied \(\d+ bytes\)$/.test(line)),
      'the database step reported',
    );
    t.same(readdirSync(join(backupDir, 'database')), ['mailroom.sqlite'], 'one self-contained file, no -wal/-shm');
    t.notMatch(outcome.stderr, /mariadb-dump/);
  } else {
    t.match(backupResult.database, { kind: 'mysql', file: null, note: /mariadb-dump/ });
    t.match(outcome.stderr, /NOTE: The database is NOT in this backup: .*mariadb-dump/, 'the MySQL note on stderr');
    t.notOk(existsSync(join(backupDir, 'database')), 'no database in a MySQL backup');
    t.equal(backupResult.files, 1 + segments.length, 'master key, segments (the raw message among them): files only');
    t.equal(manifest.database.kind, 'mysql');
  }
});

// A fresh data dir and (on SQLite) a fresh database file elsewhere.
const restoredDataDir = join(root, 'restored-data');
const restoredDatabaseUrl = SQLITE ? `sqlite://${join(root, 'restored-db', 'mailroom.sqlite')}` : restoredMysqlUrl;
const restoredEnv = envFor(restoredDataDir, restoredDatabaseUrl);

t.test('restore --from DIR into a fresh data dir and database finds every email and body', async (t) => {
  if (!SQLITE) {
    const { args, database } = mysqlClient(restoredMysqlUrl);
    await run('mariadb', [...args, '-e', `CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`]);
    await run('mariadb', [...args, database, '-e', `source ${mysqlDump}`]);
  }
  const outcome = await mailroom(['restore', '--from', backupDir], restoredEnv);
  t.equal(outcome.code, 0, `exit 0 (stderr: ${outcome.stderr})`);
  const result = JSON.parse(outcome.stdout);
  t.match(result, { from: backupDir, data_dir: restoredDataDir, files: backupResult.files, bytes: backupResult.bytes });
  t.match(outcome.stderr, /^restore: \d+\/\d+ files, \d+\/\d+ bytes$/m, 'progress on stderr');
  if (SQLITE) t.match(result.database, { kind: 'sqlite', restored_to: join(root, 'restored-db', 'mailroom.sqlite') });
  else {
    t.match(result.database, { kind: 'mysql', restored_to: null });
    t.match(outcome.stderr, /NOTE: This backup holds no database/, 'the restore says the database is not in it');
  }

  const { child, ready } = spawnMailroom('api', restoredEnv);
  t.teardown(() => stopChild(child));
  const url = await ready;

  for (const email of sent) {
    const got = await request(url, `/emails/${email.id}`, { token });
    t.equal(got.status, 200, `email ${email.subject} found`);
    t.same(got.body, originals.get(email.id), `${email.subject}: the same email as before the backup`);
    t.equal(got.body.subject, email.subject);
    t.equal(got.body.text, email.text, `${email.subject}: text body`);
    if (email.html) t.equal(got.body.html, email.html, `${email.subject}: html body`);
    else t.notOk(got.body.html, `${email.subject}: no html body`);
    if (email.attachment) {
      const list = await request(url, `/emails/${email.id}/attachments`, { token });
      t.equal(list.status, 200);
      t.match(list.body.data, [{ filename: 'report.csv', size: email.attachment.length }]);
      const link = new URL(list.body.data[0].download_url);
      const download = await fetch(`${url}${link.pathname}${link.search}`);
      t.equal(download.status, 200, 'the signed link works (the master key was restored)');
      t.same(Buffer.from(await download.arrayBuffer()), email.attachment, `${email.subject}: attachment bytes`);
    }
  }

  // Every email the restored database holds (those sent during the backup included) has its body.
  const listed: Array<{ id: string }> = [];
  for (let page = 0, after = ''; page < 10; page++) {
    const response = await request(url, `/emails?limit=100${after ? `&after=${after}` : ''}`, { token });
    t.equal(response.status, 200);
    listed.push(...(response.body.data as Array<{ id: string }>));
    if (!response.body.has_more) break;
    after = listed.at(-1)!.id;
  }
  if (SQLITE) t.equal(listed.length, backupResult.references.emails, 'the restored database holds what it counted');
  else {
    // The dump was taken before the backup read the live database's references.
    t.ok(listed.length >= sent.length + 5, 'the dump holds the emails sent before it');
    t.ok(listed.length <= backupResult.references.emails, 'and no more than the backup checked the files for');
  }
  t.equal(new Set(listed.map((item) => item.id)).size, listed.length);
  const accepted = new Map([...sent, ...duringBackup].map((email) => [email.id, email]));
  const incomplete: string[] = [];
  for (const item of listed) {
    const got = await request(url, `/emails/${item.id}`, { token });
    const expected = accepted.get(item.id);
    if (
      !expected ||
      got.status !== 200 ||
      got.body.text !== expected.text ||
      (got.body.html ?? undefined) !== expected.html
    )
      incomplete.push(item.id);
  }
  t.same(incomplete, [], 'every email of the restored database is one accepted, with its bodies');
  t.comment(
    `${duringBackup.length} emails sent while the backup ran, ${listed.length - sent.length} of them in the restored database`,
  );

  const received = await request(url, `/emails/receiving/${receivedId}`, { token });
  t.equal(received.status, 200, 'the received email found');
  t.match(received.body, { subject: 'Where is my order?', text: /Order 42 has not arrived\./ });
});

t.test('restore refuses a target that holds data, unless --force', async (t) => {
  // The restored target (the appliance started on it has stopped) now holds data; its master
  // key is changed too, as if another appliance had lived there.
  const backupKey = readFileSync(join(backupDir, 'data', 'master.key'), 'utf8');
  writeFileSync(join(restoredDataDir, 'master.key'), 'a-key-of-another-appliance-0123456789');
  // A data dir holding only a different master key is refused as well.
  const otherKeyDir = join(root, 'other-key');
  mkdirSync(otherKeyDir);
  writeFileSync(join(otherKeyDir, 'master.key'), 'another-key-another-key-another-key');
  const otherDatabase = SQLITE ? `sqlite://${join(otherKeyDir, 'db.sqlite')}` : sourceDatabaseUrl;

  const [outcome, keyed] = await Promise.all([
    mailroom(['restore', '--from', backupDir], restoredEnv),
    mailroom(['restore', '--from', backupDir], envFor(otherKeyDir, otherDatabase)),
  ]);
  t.equal(outcome.code, 2, 'a usage error');
  t.match(outcome.stderr, /restore: the target already holds .*pass --force to overwrite them/);
  if (SQLITE) t.match(outcome.stderr, /a database \(/);
  t.match(outcome.stderr, /a spool \(\d+ segment\(s\)/);
  t.match(outcome.stderr, /a different master key/);
  t.equal(outcome.stdout, '', 'no result printed');
  t.equal(
    readFileSync(join(restoredDataDir, 'master.key'), 'utf8'),
    'a-key-of-another-appliance-0123456789',
    'the target untouched',
  );
  t.equal(keyed.code, 2);
  t.match(keyed.stderr, /the target already holds a different master key/);
  t.equal(readFileSync(join(otherKeyDir, 'master.key'), 'utf8'), 'another-key-another-key-another-key', 'kept');
  t.notOk(existsSync(join(otherKeyDir, 'spool')), 'nothing restored beside it');

  const forced = await mailroom(['restore', '--from', backupDir, '--force'], restoredEnv);
  t.equal(forced.code, 0, `--force overwrites (stderr: ${forced.stderr})`);
  t.equal(JSON.parse(forced.stdout).files, backupResult.files);
  t.equal(readFileSync(join(restoredDataDir, 'master.key'), 'utf8'), backupKey, 'the master key of the backup back');
  if (SQLITE) {
    const restoredFile = join(root, 'restored-db', 'mailroom.sqlite');
    t.equal(
      readFileSync(restoredFile).equals(readFileSync(join(backupDir, 'database', 'mailroom.sqlite'))),
      true,
      'the database file is the one of the backup again',
    );
    t.notOk(existsSync(`${restoredFile}-wal`), 'no WAL of the overwritten database left to replay');
  }
});

t.test('a damaged backup is refused (exit 1) naming the file, and nothing is restored', async (t) => {
  const damaged = join(root, 'damaged');
  cpSync(backupDir, damaged, { recursive: true });
  const segment = readdirSync(join(damaged, 'data', 'spool'))[0]!;
  const path = join(damaged, 'data', 'spool', segment);
  const bytes = readFileSync(path);
  const middle = Math.floor(bytes.length / 2);
  bytes[middle] = bytes[middle]! ^ 0x01;
  writeFileSync(path, bytes);
  // A file the manifest lists that is gone: the same refusal, naming it.
  const incomplete = join(root, 'incomplete');
  cpSync(backupDir, incomplete, { recursive: true });
  const gone = join(incomplete, 'data', 'master.key');
  rmSync(gone);

  const target = join(root, 'from-damaged');
  const targetDatabase = join(root, 'from-damaged-db', 'mailroom.sqlite');
  const [outcome, missing] = await Promise.all([
    mailroom(['restore', '--from', damaged], envFor(target, SQLITE ? `sqlite://${targetDatabase}` : sourceDatabaseUrl)),
    mailroom(
      ['restore', '--from', incomplete],
      envFor(join(root, 'from-incomplete'), SQLITE ? `sqlite://${join(root, 'incomplete.sqlite')}` : sourceDatabaseUrl),
    ),
  ]);
  t.equal(outcome.code, 1, 'a damaged backup exits 1');
  t.match(outcome.stderr, `restore FAILED: checksum mismatch for ${path}`, 'the message names the file');
  t.match(outcome.stderr, /the backup is damaged or was changed; nothing was restored/);
  t.equal(outcome.stdout, '');
  const filesLeft = existsSync(target)
    ? readdirSync(target, { recursive: true })
        .map(String)
        .filter((name) => statSync(join(target, name)).isFile())
    : [];
  t.same(filesLeft, [], 'no file restored into the target data dir (staged copies removed)');
  if (SQLITE) t.notOk(existsSync(targetDatabase), 'no database installed');

  t.equal(missing.code, 1);
  t.match(missing.stderr, `restore FAILED: ${gone} is listed in the manifest but missing`);
});

t.test('usage errors exit 2: a non-empty --to, --to inside the data dir, a missing option, not a backup', async (t) => {
  const occupied = join(root, 'occupied');
  mkdirSync(occupied);
  writeFileSync(join(occupied, 'notes.txt'), 'keep me');
  const [notEmpty, inside, noTo, noFrom, notBackup] = await Promise.all([
    mailroom(['backup', '--to', occupied], sourceEnv),
    mailroom(['backup', '--to', join(sourceDataDir, 'backups')], sourceEnv),
    mailroom(['backup'], sourceEnv),
    mailroom(['restore'], restoredEnv),
    mailroom(['restore', '--from', occupied], envFor(join(root, 'nothing'), restoredDatabaseUrl)),
  ]);
  t.equal(notEmpty.code, 2);
  t.match(notEmpty.stderr, `backup: ${occupied} is not empty`);
  t.same(readdirSync(occupied), ['notes.txt'], 'nothing written into it');

  t.equal(inside.code, 2);
  t.match(inside.stderr, /is inside the data dir/);
  t.notOk(existsSync(join(sourceDataDir, 'backups')));

  t.equal(noTo.code, 2);
  t.match(noTo.stderr, /required option '--to <dir>'/);
  t.equal(noFrom.code, 2);
  t.match(noFrom.stderr, /required option '--from <dir>'/);

  t.equal(notBackup.code, 2);
  t.match(notBackup.stderr, /is not a mailroom backup \(no manifest\.json/);
  t.notOk(existsSync(join(root, 'nothing')), 'nothing created');
});
