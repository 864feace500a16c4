import { randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { simpleParser } from 'mailparser';
import t from 'tap';
import { tlsReportValidator } from '../helpers/tlsrpt-schema.js';
import { reportMailInput } from '../../core/sending/tls-reports/report-mail.js';
import type { TlsReportJson } from '../../core/sending/tls-reports/tls-report.builder.js';
import { createTlsReportServices } from '../../core/sending/tls-reports/tls-reports.services.js';
import type { TlsSessionResult } from '../../core/sending/tls-reports/tls-result.types.js';
import { purgeTlsReportsJob } from '../../scheduler/jobs/purge-tls-reports.job.js';
import { sendTlsReportsJob } from '../../scheduler/jobs/send-tls-reports.job.js';
import { movableClock } from '../helpers/clock.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { TestCa } from '../helpers/test-ca.js';
import { TlsSmtpSink } from '../helpers/tls-smtp-sink.js';

/**
 * RFC 8460 reports end to end: the MTA delivers to a destination with an MTA-STS policy (one MX
 * with an untrusted certificate, one trusted), its TLS results go through the sink into the
 * database, the clock moves a day, and the daily job POSTs the gzipped report to the
 * destination's https rua (a loopback collector with a test-CA certificate) and mails it to its
 * mailto rua (through the MTA to a loopback SMTP sink). A rerun sends nothing twice.
 */
const validate = tlsReportValidator();

const run = randomBytes(3).toString('hex');
const DEST = `tlsdest-${run}.test`;
const COLLECT = `tlscollect-${run}.test`;
const ca = TestCa.create();

// The destination's MTA-STS policy, served on loopback with a certificate from the test CA.
const policyCert = ca.issue([`mta-sts.${DEST}`, `reports.${COLLECT}`]);
const policyText = ['version: STSv1', 'mode: enforce', `mx: *.${DEST}`, 'max_age: 86400', ''].join('\r\n');
const posts: Array<{ url: string; type: string | undefined; body: Buffer }> = [];
const https = createServer({ key: policyCert.key, cert: policyCert.cert }, (req, res) => {
  if (req.method === 'GET' && req.url === '/.well-known/mta-sts.txt')
    return void res.writeHead(200, { 'content-type': 'text/plain' }).end(policyText);
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    posts.push({ url: req.url ?? '', type: req.headers['content-type'], body: Buffer.concat(chunks) });
    res.writeHead(201).end();
  });
});
await new Promise<void>((resolve) => https.listen(0, '127.0.0.31', () => resolve()));
const httpsPort = (https.address() as AddressInfo).port;

// mx0: a certificate the MTA does not trust (a failure it reports); mx1: a trusted one.
const trusted = ca.issue([`mx1.${DEST}`]);
const good = await TlsSmtpSink.start('127.0.0.20', 0, { key: trusted.key, cert: trusted.cert });
const selfSigned = ca.issue(['other.test'], { selfSigned: true });
const bad = await TlsSmtpSink.start('127.0.0.21', good.port, { key: selfSigned.key, cert: selfSigned.cert });
const collector = await SmtpSink.start('127.0.0.40', good.port);

const recorded: TlsSessionResult[] = [];
const clock = movableClock();
const fx = await startMtaFixture({
  sinkHosts: [],
  port: good.port,
  clock,
  mta: { tlsCaFile: ca.caFile, dnsCacheMs: 0, retrySchedule: [30], mtaSts: { port: httpsPort } },
  config: { tlsReports: { organizationName: 'Mailroom Test', allowAddresses: ['127.0.0.0/8'], flushSeconds: 1 } },
  // What the MTA records goes to the appliance's own sink (and is kept here to compare).
  tlsResults: {
    record: (result) => {
      recorded.push(result);
      fx.app.runtime.services.tlsReports.sink.record(result);
    },
  },
});
t.teardown(async () => {
  await fx.close();
  await good.close();
  await bad.close();
  await collector.close();
  await new Promise((resolve) => https.close(resolve));
});

fx.dns.add(
  { type: 'TXT', name: `_mta-sts.${DEST}`, value: 'v=STSv1; id=one;' },
  { type: 'A', name: `mta-sts.${DEST}`, address: '127.0.0.31' },
  { type: 'MX', name: DEST, exchange: `mx0.${DEST}`, priority: 10 },
  { type: 'A', name: `mx0.${DEST}`, address: '127.0.0.21' },
  { type: 'MX', name: DEST, exchange: `mx1.${DEST}`, priority: 20 },
  { type: 'A', name: `mx1.${DEST}`, address: '127.0.0.20' },
  {
    type: 'TXT',
    name: `_smtp._tls.${DEST}`,
    value: `v=TLSRPTv1; rua=https://reports.${COLLECT}:${httpsPort}/tlsrpt,mailto:tls-reports@${COLLECT}`,
  },
  { type: 'A', name: `reports.${COLLECT}`, address: '127.0.0.31' },
  { type: 'MX', name: COLLECT, exchange: `mx.${COLLECT}`, priority: 10 },
  { type: 'A', name: `mx.${COLLECT}`, address: '127.0.0.40' },
);

const services = () => fx.app.runtime.services;

t.test('the MTA records its sessions; the next day the job POSTs the report; a rerun sends nothing', async (t) => {
  for (const n of [1, 2]) {
    const id = await fx.send({ to: [`user${n}@${DEST}`] });
    await fx.waitForEvents(id, ['email.sent', 'email.delivered']);
  }
  const mine = () => recorded.filter((result) => result.policyDomain === DEST);
  t.ok(
    mine().some((result) => result.outcome === 'success'),
    'sessions to the trusted MX recorded as successes',
  );
  t.ok(
    mine().some((result) => result.outcome !== 'success'),
    'sessions to the untrusted MX recorded as failures',
  );
  await services().tlsReports.sink.flush();

  clock.advanceTo(Date.now() + 86_400_000);
  const counts = await sendTlsReportsJob.run(services());
  // The https rua takes it; the mailto rua fails: this appliance has no report sender configured.
  t.match(counts, { domains: 1, sent: 1, failed: 1, alreadySent: 0 });
  t.equal(posts.length, 1);
  const post = posts[0]!;
  t.equal(post.url, '/tlsrpt');
  t.equal(post.type, 'application/tlsrpt+gzip');
  const report = JSON.parse(gunzipSync(post.body).toString('utf8')) as TlsReportJson;
  t.ok(validate(report), `valid against RFC 8460's schema: ${JSON.stringify(validate.errors)}`);
  const day = new Date().toISOString().slice(0, 10);
  t.match(report, {
    'organization-name': 'Mailroom Test',
    'contact-info': 'postmaster@mta.mailroom.test',
    'report-id': `${day}T00:00:00Z_${DEST}@mta.mailroom.test`,
    'date-range': { 'start-datetime': `${day}T00:00:00Z`, 'end-datetime': `${day}T23:59:59Z` },
  });
  t.equal(report.policies.length, 1, 'one policy applied');
  const [entry] = report.policies;
  t.match(entry!.policy, { 'policy-type': 'sts', 'policy-domain': DEST });
  t.ok(entry!.policy['policy-string'].includes('mode: enforce'), 'the policy text');
  const successes = mine().filter((result) => result.outcome === 'success').length;
  const failures = mine().length - successes;
  t.same(entry!.summary, {
    'total-successful-session-count': successes,
    'total-failure-session-count': failures,
  });
  const detailed = (entry!['failure-details'] ?? []).reduce((sum, d) => sum + d['failed-session-count'], 0);
  t.equal(detailed, failures, 'the failure details add up to the summary');
  t.match(entry!['failure-details']![0], { 'receiving-mx-hostname': `mx0.${DEST}`, 'receiving-ip': '127.0.0.21' });

  const sent = await sendTlsReportsJob.run(services());
  t.match(sent, { sent: 0, alreadySent: 1, failed: 1 }, 'a rerun: the sent one is not sent again');
  t.equal(posts.length, 1);
});

t.test('mailto: the report goes out through the MTA as RFC 8460 5.3 mail', async (t) => {
  // The wiring app/services.ts does with tlsReports.mailFrom and accounts.mailTeamId set.
  const team = await services().teams.get(fx.teamId);
  const runtime = fx.app.runtime;
  const withMail = createTlsReportServices({
    knex: runtime.db.knex,
    clock,
    config: runtime.config,
    lookup: runtime.lookup,
    logger: runtime.logger,
    sendMail: async (mail) => {
      await services().emailAcceptance.acceptForAccountMail(
        team,
        reportMailInput('TLS reports <tlsrpt@sender.test>', mail),
      );
    },
  });
  const counts = await withMail.reports.sendDaily();
  t.match(counts, { sent: 1, alreadySent: 1, failed: 0 }, 'the https one was sent already; the mailto one now');
  const message = await fx.waitFor(
    async () => collector.messages.find((m) => m.to.includes(`tls-reports@${COLLECT}`)),
    'the report mail',
  );
  const parsed = await simpleParser(message.data);
  const day = new Date().toISOString().slice(0, 10);
  t.equal(
    parsed.subject,
    `Report Domain: ${DEST} Submitter: mta.mailroom.test Report-ID: <${day}T00:00:00Z_${DEST}@mta.mailroom.test>`,
  );
  t.equal(parsed.headers.get('tls-report-domain'), DEST);
  t.equal(parsed.headers.get('tls-report-submitter'), 'mta.mailroom.test');
  t.equal(parsed.attachments.length, 1);
  const attachment = parsed.attachments[0]!;
  t.equal(attachment.contentType, 'application/tlsrpt+gzip');
  t.match(
    attachment.filename,
    new RegExp(`^mta\\.mailroom\\.test!${DEST.replace(/\./g, '\\.')}!\\d+!\\d+!001\\.json\\.gz$`),
  );
  const report = JSON.parse(gunzipSync(attachment.content).toString('utf8')) as TlsReportJson;
  t.ok(validate(report), JSON.stringify(validate.errors));
  t.equal(report.policies[0]!.policy['policy-domain'], DEST);
  t.same((await withMail.reports.sendDaily()).sent, 0, 'every destination has its report: nothing more is sent');
});

t.test('retention: counts and sent records past tlsReports.retentionDays are deleted', async (t) => {
  const knex = fx.app.runtime.db.knex;
  t.ok(((await knex('tls_results').count({ n: '*' }))[0] as { n: number }).n > 0);
  clock.advanceTo(Date.now() + 40 * 86_400_000);
  const purged = await purgeTlsReportsJob.run(services());
  t.ok(purged.results! > 0 && purged.reports === 2, JSON.stringify(purged));
  t.equal(Number(((await knex('tls_results').count({ n: '*' }))[0] as { n: number }).n), 0);
  t.equal(Number(((await knex('tls_reports_sent').count({ n: '*' }))[0] as { n: number }).n), 0);
});
