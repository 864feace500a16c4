import { readFileSync } from 'node:fs';
import t from 'tap';
import { newId } from '../../lib/ids.js';
import { jobs } from '../../scheduler/jobs/index.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/** purge-dmarc-reports: reports past dmarcReports.retentionDays go with their rows; so do those of deleted domains. */
const app = await startTestApp({ config: { dmarcReports: { retentionDays: 30 } } });
t.teardown(() => app.close());
const { runtime } = app;
const knex = runtime.db.knex;
const DAY = 86_400_000;
const service = runtime.services.dmarcReports;

/** A Google report for the domain, stored as if received `age` days ago, under report id `reportId`. */
async function stored(target: { domainId: string; teamId: string }, age: number, reportId: string) {
  const gz = readFileSync(new URL('../fixtures/dmarc/google.xml.gz', import.meta.url));
  const raw = Buffer.from(
    [
      'From: noreply-dmarc-support@google.com',
      'Subject: Report domain: dmarc-fixture.test',
      'MIME-Version: 1.0',
      'Content-Type: application/gzip; name="report.xml.gz"',
      'Content-Disposition: attachment; filename="report.xml.gz"',
      'Content-Transfer-Encoding: base64',
      '',
      gz.toString('base64'),
      '',
    ].join('\r\n'),
  );
  const prepared = await service.prepare(raw, { ...target, name: 'dmarc-fixture.test', zone: 'dmarc-fixture.test' });
  prepared.report.reportId = reportId;
  prepared.report.receivedAt = new Date(Date.now() - age * DAY);
  await knex.transaction((trx) => service.store(trx, prepared));
  return prepared.report.id;
}
const rowsOf = async (id: string) => (await knex('dmarc_report_rows').where({ report_id: id })).length;
const exists = async (id: string) => (await knex('dmarc_reports').where({ id })).length === 1;

t.test('purge-dmarc-reports is a scheduled hourly job', async (t) => {
  const job = jobs.find((j) => j.name === 'purge-dmarc-reports');
  t.ok(job);
  t.match(job!.cron, /^\d+ \* \* \* \*$/);
});

t.test('past retention, and of a deleted domain: gone with their rows; the rest stays', async (t) => {
  const team = await app.createTeam('Purge', 'unlimited');
  const domain = await markedVerifiedDomain(app, team.teamId, 'dmarc-fixture.test');
  const target = { domainId: domain.id, teamId: team.teamId };
  const old = await stored(target, 31, 'old');
  const recent = await stored(target, 29, 'recent');
  const orphan = await stored({ domainId: newId(), teamId: team.teamId }, 1, 'orphan');
  t.equal(await rowsOf(old), 3, 'stored with its rows');

  const job = jobs.find((j) => j.name === 'purge-dmarc-reports')!;
  t.same(await job.run(runtime.services), { deleted: 1, orphans: 1 });
  t.notOk(await exists(old));
  t.equal(await rowsOf(old), 0);
  t.notOk(await exists(orphan));
  t.equal(await rowsOf(orphan), 0);
  t.ok(await exists(recent));
  t.equal(await rowsOf(recent), 3);
  t.same(await job.run(runtime.services), { deleted: 0, orphans: 0 }, 'nothing left to purge');
});
