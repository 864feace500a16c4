/**
 * RFC 8460 reports: the JSON we build validates against the schema written from the RFC's 4.4
 * (test/fixtures/tlsrpt-schema.json), with the right sums per policy; TLSRPT records parse as
 * the RFC's section 3 says; the sink adds counts in the database (SQLite or MariaDB) without
 * I/O on record(), and keeps them across a failed write.
 */
import t from 'tap';
import { tlsReportValidator } from '../../../helpers/tlsrpt-schema.js';
import { migrateLatest } from '../../../../db/migrate.js';
import { createLogger } from '../../../../lib/logger.js';
import { buildTlsReport, reportFilename } from '../../../../core/sending/tls-reports/tls-report.builder.js';
import { TlsResultAggregator } from '../../../../core/sending/tls-reports/tls-result-aggregator.js';
import {
  TlsResultRepository,
  type TlsResultCount,
} from '../../../../core/sending/tls-reports/tls-result.repository.js';
import type { TlsSessionResult } from '../../../../core/sending/tls-reports/tls-result.types.js';
import { ownTlsRptValue, parseTlsRpt } from '../../../../core/sending/tls-reports/tlsrpt-record.js';
import { connectTestDatabase } from '../../../helpers/test-database.js';
import { tlsRptUpdate } from '../../../../core/sending/domains/auto-configure/zone-changes.js';
import type { Domain } from '../../../../core/sending/domains/domain.types.js';

// ajv is a CommonJS module: its class is the default export's `default` under some loaders.
const validate = tlsReportValidator();

const identity = { organizationName: 'Mailroom Test', contactInfo: 'postmaster@mta.test', submitter: 'mta.test' };
const STS = ['version: STSv1', 'mode: enforce', 'mx: *.mx.dest.test', 'max_age: 86400'];
const count = (over: Partial<TlsResultCount>): TlsResultCount => ({
  day: '2026-11-27',
  policyDomain: 'dest.test',
  policyType: 'sts',
  policyString: STS,
  mxHost: '*.mx.dest.test',
  resultType: 'success',
  sendingIp: null,
  receivingMxHostname: null,
  receivingIp: null,
  additionalInfo: null,
  sessions: 1,
  ...over,
});

t.test('the report validates against the RFC 8460 schema, one policy entry per policy, sums right', async (t) => {
  const report = buildTlsReport(identity, '2026-11-27', 'dest.test', [
    count({ sessions: 40 }),
    count({
      resultType: 'certificate-expired',
      sendingIp: '192.0.2.10',
      receivingMxHostname: 'a.mx.dest.test',
      receivingIp: '198.51.100.7',
      additionalInfo: 'certificate has expired',
      sessions: 3,
    }),
    count({ policyType: 'no-policy-found', policyString: [], mxHost: null, sessions: 5 }),
  ]);
  t.ok(validate(report), JSON.stringify(validate.errors));
  t.match(report, {
    'organization-name': 'Mailroom Test',
    'date-range': { 'start-datetime': '2026-11-27T00:00:00Z', 'end-datetime': '2026-11-27T23:59:59Z' },
    'contact-info': 'postmaster@mta.test',
    'report-id': '2026-11-27T00:00:00Z_dest.test@mta.test',
  });
  t.equal(report.policies.length, 2);
  const sts = report.policies.find((p) => p.policy['policy-type'] === 'sts')!;
  t.same(sts.policy, {
    'policy-type': 'sts',
    'policy-string': STS,
    'policy-domain': 'dest.test',
    'mx-host': ['*.mx.dest.test'],
  });
  t.same(sts.summary, { 'total-successful-session-count': 40, 'total-failure-session-count': 3 });
  t.same(sts['failure-details'], [
    {
      'result-type': 'certificate-expired',
      'sending-mta-ip': '192.0.2.10',
      'receiving-mx-hostname': 'a.mx.dest.test',
      'receiving-ip': '198.51.100.7',
      'failed-session-count': 3,
      'additional-information': 'certificate has expired',
    },
  ]);
  const none = report.policies.find((p) => p.policy['policy-type'] === 'no-policy-found')!;
  t.same(none.summary, { 'total-successful-session-count': 5, 'total-failure-session-count': 0 });
  t.notOk('failure-details' in none, 'no failures: no failure-details');
  t.notOk('mx-host' in none.policy);
});

t.test('the schema refuses what the RFC does not allow', async (t) => {
  const report = buildTlsReport(identity, '2026-11-27', 'dest.test', [count({})]) as unknown as Record<string, any>;
  t.notOk(validate({ ...report, policies: undefined }), 'policies required');
  const badType = structuredClone(report);
  badType.policies[0].policy['policy-type'] = 'dane';
  t.notOk(validate(badType), 'an unregistered policy type');
  const badCount = structuredClone(report);
  badCount.policies[0].summary['total-failure-session-count'] = -1;
  t.notOk(validate(badCount), 'a negative count');
});

t.test('the attachment name follows RFC 8460 5.3', async (t) => {
  t.equal(
    reportFilename('mta.test', 'dest.test', '2026-11-27'),
    'mta.test!dest.test!1795737600!1795823999!001.json.gz',
  );
});

t.test('TLSRPT records: RFC 8460 section 3', async (t) => {
  t.same(parseTlsRpt('v=TLSRPTv1; rua=mailto:tls@dest.test'), { ok: true, record: { rua: ['mailto:tls@dest.test'] } });
  t.same(parseTlsRpt('v=TLSRPTv1;rua=mailto:a@dest.test!10m, https://reports.dest.test/tls'), {
    ok: true,
    record: { rua: ['mailto:a@dest.test', 'https://reports.dest.test/tls'] },
  });
  t.match(parseTlsRpt('v=TLSRPTv2; rua=mailto:a@dest.test'), { ok: false, problem: /v=TLSRPTv1/ });
  t.match(parseTlsRpt('v=TLSRPTv1'), { ok: false, problem: /no rua/ });
  t.match(parseTlsRpt('v=TLSRPTv1; rua=http://dest.test/'), { ok: false, problem: /neither/ });
  t.same(parseTlsRpt(ownTlsRptValue('tlsrpt@mta.test')), { ok: true, record: { rua: ['mailto:tlsrpt@mta.test'] } });
});

t.test('the sink: counts in memory, added to the database rows on flush, summed across flushes', async (t) => {
  const { db, close } = await connectTestDatabase();
  t.teardown(close);
  await migrateLatest(db.knex);
  const repository = new TlsResultRepository(db.knex);
  const sink = new TlsResultAggregator({
    repository,
    clock: { now: () => new Date() },
    logger: createLogger('silent'),
    flushMs: 3_600_000,
  });
  const at = new Date('2026-11-27T10:00:00Z');
  const success: TlsSessionResult = {
    policyDomain: 'Dest.test.',
    policyType: 'no-policy-found',
    policyString: [],
    mxHost: null,
    sendingIp: '192.0.2.10',
    receivingIp: '198.51.100.7',
    receivingMxHostname: 'mx.dest.test',
    outcome: 'success',
    at,
  };
  const failure: TlsSessionResult = {
    ...success,
    outcome: { failure: 'starttls-not-supported', detail: 'no STARTTLS in EHLO' },
  };
  for (let i = 0; i < 7; i++) sink.record(success);
  sink.record(failure);
  t.equal(sink.pendingRows, 2, 'one row per distinct outcome, whatever the number of sessions');
  await sink.flush();
  sink.record(success);
  await sink.stop();
  const rows = await repository.countsFor('2026-11-27', 'dest.test');
  t.same(rows.map((row) => [row.resultType, row.sessions, row.sendingIp]).sort(), [
    ['starttls-not-supported', 1, '192.0.2.10'],
    ['success', 8, null],
  ]);
  t.same(await repository.domainsOn('2026-11-27'), ['dest.test']);
  t.equal(await repository.purgeBefore('2026-11-28'), 2);
});

t.test('a failed write keeps the counts for the next flush', async (t) => {
  const { db, close } = await connectTestDatabase();
  t.teardown(close);
  await migrateLatest(db.knex);
  const repository = new TlsResultRepository(db.knex);
  const sink = new TlsResultAggregator({
    repository,
    clock: { now: () => new Date() },
    logger: createLogger('silent'),
    flushMs: 3_600_000,
  });
  const result: TlsSessionResult = {
    policyDomain: 'dest.test',
    policyType: 'no-policy-found',
    policyString: [],
    mxHost: null,
    sendingIp: null,
    receivingIp: null,
    receivingMxHostname: null,
    outcome: 'success',
    at: new Date('2026-11-27T10:00:00Z'),
  };
  sink.record(result);
  // The table gone for a moment: the write fails, as with a database that does not answer.
  await db.knex.schema.renameTable('tls_results', 'tls_results_away');
  await sink.flush();
  t.equal(sink.pendingRows, 1, 'kept');
  await db.knex.schema.renameTable('tls_results_away', 'tls_results');
  sink.record(result);
  await sink.stop();
  t.same(
    (await repository.countsFor('2026-11-27', 'dest.test')).map((row) => row.sessions),
    [2],
  );
});

t.test('auto-configure publishes our TLSRPT record only where the domain has none', async (t) => {
  const domain = { name: 'mail.acme.test' } as Domain;
  t.same(tlsRptUpdate(domain, 3600, 'tlsrpt@mta.test'), {
    prerequisites: [{ rrsetAbsent: { name: '_smtp._tls.mail.acme.test', type: 'TXT' } }],
    updates: [
      {
        op: 'add',
        record: {
          name: '_smtp._tls.mail.acme.test',
          type: 'TXT',
          ttl: 3600,
          data: ['v=TLSRPTv1; rua=mailto:tlsrpt@mta.test'],
        },
      },
    ],
  });
});
