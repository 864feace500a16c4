import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import t from 'tap';
import { createDomainSchema } from '../../core/sending/domains/domain.schemas.js';
import { startInboundServer } from '../../inbound/inbound-server.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * DMARC aggregate reports end to end: receivers' reports (Google's gzip XML, Microsoft's gzip and
 * zip) arrive at the real MX at the domain's rua address, and the API lists them and sums them
 * up; a malformed report or a decompression bomb is recorded as failed (250, and the API still
 * answers 200), an oversized one is refused at DATA, a report sent again is stored once.
 */
const MX_HOST = 'mx.mailroom.test';
const app = await startTestApp({
  config: {
    mta: { regions: { 'us-east-1': { ips: ['192.0.2.10', '192.0.2.11'] } } },
    inbound: { mxHost: MX_HOST },
    dmarcReports: { maxReportBytes: 200_000, maxXmlBytes: 1024 * 1024 },
  },
});
const mx = await startInboundServer(app.runtime);
t.teardown(async () => {
  await mx.close();
  await app.close();
});
const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mx.port, secure: false, ignoreTLS: true });
const fixture = (name: string) => readFileSync(new URL(`../fixtures/dmarc/${name}`, import.meta.url));

const team = await app.createTeam('Reports', 'unlimited');
const other = await app.createTeam('Other', 'unlimited');
// Another team holds the same name (not verified): the per-domain address keeps reports apart.
const othersDomain = (
  await app.runtime.services.domains.create(
    await app.runtime.services.teams.get(other.teamId),
    createDomainSchema.parse({ name: 'dmarc-fixture.test' }),
  )
).domain;
const domain = await markedVerifiedDomain(app, team.teamId, 'dmarc-fixture.test');
const rua = (id: string) => `dmarc-reports+${id}@${MX_HOST}`;
const call = (path: string, token = team.token) => request(app.url, path, { token });
const base = `/domains/${domain.id}/dmarc-reports`;

function sendReport(to: string, attachment: { filename: string; content: Buffer; contentType: string }) {
  return transport.sendMail({
    envelope: { from: 'noreply-dmarc-support@google.com', to: [to] },
    from: 'noreply-dmarc-support@google.com',
    to,
    subject: `Report domain: dmarc-fixture.test Submitter: google.com Report-ID: ${attachment.filename}`,
    text: 'This is an aggregate report from google.com.',
    attachments: [attachment],
  });
}

t.test('the DMARC record names the rua address, and the zone snippet says what the MX zone needs', async (t) => {
  const zone = await request(app.url, `/domains/${domain.id}/zone`, { token: team.token });
  t.equal(zone.status, 200);
  t.match(zone.text, `_dmarc.dmarc-fixture.test.\t3600\tIN\tTXT\t"v=DMARC1; p=none; rua=mailto:${rua(domain.id)}"\n`);
  t.match(zone.text, `*._report._dmarc.${MX_HOST}. TXT "v=DMARC1"`);
});

t.test('Google (gzip) and Microsoft (zip, then the same report gzip) reports: stored once each', async (t) => {
  const google = await sendReport(rua(domain.id), {
    filename: 'google.com!dmarc-fixture.test!1764201600!1764287999.xml.gz',
    content: fixture('google.xml.gz'),
    contentType: 'application/gzip',
  });
  t.match(google.response, /^250 /);
  const zip = await sendReport(rua(domain.id), {
    filename: 'enterprise.protection.outlook.com!dmarc-fixture.test!1764201600!1764288000.zip',
    content: fixture('microsoft.zip'),
    contentType: 'application/zip',
  });
  t.match(zip.response, /^250 /);
  const again = await sendReport(rua(domain.id), {
    filename: 'enterprise.protection.outlook.com!dmarc-fixture.test!1764201600!1764288000.xml.gz',
    content: fixture('microsoft.xml.gz'),
    contentType: 'application/gzip',
  });
  t.match(again.response, /^250 /, 'a report sent again is accepted');

  const list = await call(base);
  t.equal(list.status, 200);
  t.equal(list.body.object, 'list');
  t.equal(list.body.data.length, 2, 'the duplicate is stored once');
  const [microsoft, googleReport] = list.body.data;
  t.match(googleReport, {
    object: 'dmarc_report',
    domain_id: domain.id,
    status: 'parsed',
    error: null,
    org_name: 'google.com',
    email: 'noreply-dmarc-support@google.com',
    report_id: '14260836813722119513',
    date_range: { begin: '2025-11-27T00:00:00.000Z', end: '2025-11-27T23:59:59.000Z' },
    policy_published: { domain: 'dmarc-fixture.test', p: 'none', pct: 100 },
    message_count: 157,
  });
  t.equal(googleReport.records.length, 3);
  t.same(googleReport.records[2], {
    source_ip: '203.0.113.50',
    count: 7,
    disposition: 'none',
    dkim: 'fail',
    spf: 'fail',
    header_from: 'dmarc-fixture.test',
    envelope_from: null,
    auth_results: { dkim: [], spf: [{ domain: 'spoofer.example', result: 'softfail', scope: null }] },
  });
  t.match(microsoft, { org_name: 'Enterprise Outlook', message_count: 43, status: 'parsed' });

  const page = await call(`${base}?limit=1`);
  t.equal(page.body.has_more, true);
  t.equal(page.body.data[0].id, microsoft.id);
  const next = await call(`${base}?limit=1&after=${microsoft.id}`);
  t.same(
    next.body.data.map((r: { id: string }) => r.id),
    [googleReport.id],
  );
  t.equal((await call(`/domains/${othersDomain.id}/dmarc-reports`, other.token)).body.data.length, 0);
});

t.test('the summary: counts, alignment pass rates, our sources and unknown senders', async (t) => {
  const summary = await call(`${base}/summary?from=2025-11-27&to=2025-11-27`);
  t.equal(summary.status, 200);
  t.match(summary.body, {
    object: 'dmarc_summary',
    domain_id: domain.id,
    from: '2025-11-27T00:00:00.000Z',
    to: '2025-11-27T23:59:59.999Z',
    messages: 200,
    dkim_aligned_rate: 0.95,
    spf_aligned_rate: 0.8,
    dmarc_pass_rate: 0.95,
  });
  t.same(summary.body.sources, [
    { ip: '192.0.2.10', count: 160, spf_aligned_rate: 1, dkim_aligned_rate: 1, dmarc_pass_rate: 1, ours: true },
    { ip: '192.0.2.11', count: 30, spf_aligned_rate: 0, dkim_aligned_rate: 1, dmarc_pass_rate: 1, ours: true },
    { ip: '203.0.113.50', count: 7, spf_aligned_rate: 0, dkim_aligned_rate: 0, dmarc_pass_rate: 0, ours: false },
    { ip: '2001:db8::25', count: 3, spf_aligned_rate: 0, dkim_aligned_rate: 0, dmarc_pass_rate: 0, ours: false },
  ]);
  t.same(summary.body.days, [{ date: '2025-11-27', count: 200, dmarc_pass: 190 }]);
  t.same(summary.body.unknown_senders, [
    { ip: '203.0.113.50', count: 7, failed: 7 },
    { ip: '2001:db8::25', count: 3, failed: 3 },
  ]);
  const recent = await call(`${base}/summary?days=7`);
  t.equal(recent.status, 200);
  t.equal(recent.body.messages, 0, 'a period without reports: nothing, and rates of 0');
});

t.test('a malformed report and a decompression bomb are recorded as failed; the API still answers', async (t) => {
  const malformed = await sendReport(rua(domain.id), {
    filename: 'broken.xml',
    content: Buffer.from('<feedback><report_metadata><org_name>Broken</org_name>'),
    contentType: 'text/xml',
  });
  t.match(malformed.response, /^250 /);
  const bomb = await sendReport(rua(domain.id), {
    filename: 'bomb.xml.gz',
    content: fixture('bomb.xml.gz'),
    contentType: 'application/gzip',
  });
  t.match(bomb.response, /^250 /);
  const none = await transport.sendMail({
    envelope: { from: 'someone@example.net', to: [rua(domain.id)] },
    raw: 'From: someone@example.net\r\nSubject: hello\r\n\r\nNo attachment here.\r\n',
  });
  t.match(none.response, /^250 /);
  const list = await call(base);
  t.equal(list.status, 200);
  const failed = list.body.data.filter((r: { status: string }) => r.status === 'failed');
  t.equal(failed.length, 3);
  t.match(failed[0], { error: /no report attachment/, org_name: null, records: [] });
  t.match(failed[1], { error: /inflates past 1048576 bytes/ });
  t.match(failed[2], { error: /the report has no report_id/ });
  const summary = await call(`${base}/summary?from=2025-11-27&to=2025-11-27`);
  t.equal(summary.status, 200);
  t.equal(summary.body.messages, 200, 'failed reports add nothing');
});

t.test('an oversized report is refused at DATA and leaves nothing', async (t) => {
  const before = (await call(`${base}?limit=100`)).body.data.length;
  const err = await sendReport(rua(domain.id), {
    filename: 'huge.xml.gz',
    content: randomBytes(300_000),
    contentType: 'application/gzip',
  }).then(
    () => null,
    (error: { responseCode?: number; response?: string }) => error,
  );
  t.ok(err, 'refused');
  t.equal(err?.responseCode, 554);
  t.match(err?.response, /DMARC report too large/);
  t.equal((await call(`${base}?limit=100`)).body.data.length, before);
});

t.test('addresses of no domain are refused at RCPT', async (t) => {
  const err = await sendReport(`dmarc-reports+0190a5b4-1c2d-7e3f-8a9b-0c1d2e3f4a5b@${MX_HOST}`, {
    filename: 'google.xml.gz',
    content: fixture('google.xml.gz'),
    contentType: 'application/gzip',
  }).then(
    () => null,
    (error: { responseCode?: number }) => error,
  );
  t.equal(err?.responseCode, 550);
});

t.test('errors: another team’s domain is not found, a bad query is 422', async (t) => {
  errorShape(t, await call(base, other.token), 404, 'not_found');
  errorShape(t, await call(`${base}/summary`, other.token), 404, 'not_found');
  errorShape(t, await call(`${base}/summary?days=0`), 422, 'invalid_parameter');
  errorShape(t, await call(`${base}/summary?days=7&from=2025-11-01`), 422, 'invalid_parameter');
  errorShape(t, await call(`${base}/summary?from=2025-11-10&to=2025-11-01`), 422, 'invalid_parameter');
  errorShape(t, await call(`${base}/summary?from=yesterday`), 422, 'invalid_parameter');
  errorShape(t, await call(`${base}?limit=0`), 422, 'invalid_parameter');
});
