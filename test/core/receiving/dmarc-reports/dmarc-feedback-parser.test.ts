import { readFileSync } from 'node:fs';
import { deflateRawSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { reportPartOf, reportXmlOf } from '../../../../core/receiving/dmarc-reports/dmarc-attachment.js';
import { parseDmarcFeedback } from '../../../../core/receiving/dmarc-reports/dmarc-feedback-parser.js';
import { summarize } from '../../../../core/receiving/dmarc-reports/dmarc-summary.js';

/** The RFC 7489 appendix C reader, the attachment unpacking (gzip, zip, plain) and its limits. */
const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/dmarc/${name}`, import.meta.url));
const MB = 1024 * 1024;

t.test('a Google report (gzip): metadata, policy and every row', async (t) => {
  const report = parseDmarcFeedback(reportXmlOf(fixture('google.xml.gz'), MB), 1000);
  t.equal(report.orgName, 'google.com');
  t.equal(report.email, 'noreply-dmarc-support@google.com');
  t.equal(report.reportId, '14260836813722119513', 'a long numeric id stays a string, digit for digit');
  t.equal(report.dateBegin.toISOString(), '2025-11-27T00:00:00.000Z');
  t.equal(report.dateEnd.toISOString(), '2025-11-27T23:59:59.000Z');
  t.same(report.policy, { domain: 'dmarc-fixture.test', adkim: 'r', aspf: 'r', p: 'none', sp: 'none', pct: 100 });
  t.equal(report.rows.length, 3);
  t.same(report.rows[1], {
    sourceIp: '192.0.2.11',
    count: 30,
    disposition: 'none',
    dkim: 'pass',
    spf: 'fail',
    headerFrom: 'dmarc-fixture.test',
    envelopeFrom: null,
    authResults: {
      dkim: [{ domain: 'dmarc-fixture.test', result: 'pass', selector: 'mr2026a' }],
      spf: [{ domain: 'bounces.list-host.example', result: 'pass', scope: null }],
    },
  });
  t.same(report.rows[2]!.authResults.dkim, [], 'a record without DKIM results has none');
});

t.test('a Microsoft report: gzip and zip read the same, IPv6 sources and envelope_from kept', async (t) => {
  const fromGzip = parseDmarcFeedback(reportXmlOf(fixture('microsoft.xml.gz'), MB), 1000);
  const fromZip = parseDmarcFeedback(reportXmlOf(fixture('microsoft.zip'), MB), 1000);
  t.same(fromZip, fromGzip);
  t.equal(fromGzip.orgName, 'Enterprise Outlook');
  t.equal(fromGzip.rows[1]!.sourceIp, '2001:db8::25');
  t.equal(fromGzip.rows[0]!.envelopeFrom, 'send.dmarc-fixture.test');
  t.same(fromGzip.rows[0]!.authResults.spf, [{ domain: 'send.dmarc-fixture.test', result: 'pass', scope: 'mfrom' }]);
});

t.test('a zip written while streaming (sizes only in the central directory) and a stored entry', async (t) => {
  const xml = reportXmlOf(fixture('google.xml.gz'), MB);
  t.equal(reportXmlOf(zip(Buffer.from(xml), 8, true), MB), xml);
  t.equal(reportXmlOf(zip(Buffer.from(xml), 0, false), MB), xml);
  t.equal(reportXmlOf(Buffer.from(xml), MB), xml, 'plain XML is read as it is');
});

t.test('bombs stop at the uncompressed limit', async (t) => {
  t.throws(() => reportXmlOf(fixture('bomb.xml.gz'), MB), { message: /inflates past 1048576 bytes/ });
  const zeros = Buffer.alloc(4 * MB, 0x20);
  t.throws(
    () => reportXmlOf(zip(zeros, 8, true), MB),
    { name: 'DmarcReportError' },
    'a zip whose entry inflates too far',
  );
  t.throws(() => reportXmlOf(zip(zeros, 8, false), MB), { message: /inflates past/ }, 'a zip that says so');
  t.throws(() => reportXmlOf(gzipSync(zeros).subarray(0, 40), 8 * MB), { message: /cannot be decompressed/ });
});

t.test('malformed documents are errors with a reason, never anything else', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['<feedback><report_metadata>', /no org_name|not well-formed/],
    ['<html><body>hello</body></html>', /not a DMARC <feedback> report/],
    ['not xml at all', /not a DMARC|not well-formed/],
    ['<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><feedback/>', /DOCTYPE/],
    [feedback('<record><row><source_ip>not-an-ip</source_ip><count>1</count></row></record>'), /not an address/],
    [feedback('<record><row><source_ip>192.0.2.1</source_ip><count>-4</count></row></record>'), /whole number/],
    [feedback('').replace('<report_id>r1</report_id>', ''), /no report_id/],
    [feedback('').replace('<begin>1764201600</begin>', '<begin>yesterday</begin>'), /not a timestamp/],
  ];
  for (const [xml, reason] of cases)
    t.throws(() => parseDmarcFeedback(xml, 100), { message: reason }, xml.slice(0, 60));
  for (const [xml] of cases) t.throws(() => parseDmarcFeedback(xml, 100), { name: 'DmarcReportError' });
});

t.test('more records than the cap is an error, not a truncation', async (t) => {
  const row = '<record><row><source_ip>192.0.2.1</source_ip><count>1</count></row></record>';
  t.equal(parseDmarcFeedback(feedback(row.repeat(3)), 3).rows.length, 3);
  t.throws(() => parseDmarcFeedback(feedback(row.repeat(4)), 3), { message: /4 records, more than the 3 accepted/ });
});

t.test('the report part of a message: by file name, else by type', async (t) => {
  const content = Buffer.from('x');
  const parts = [
    { filename: null, contentType: 'text/plain', content },
    { filename: 'google.com!example.com!1!2.zip', contentType: 'application/octet-stream', content },
  ];
  t.equal(reportPartOf(parts), parts[1]);
  t.equal(
    reportPartOf([{ filename: null, contentType: 'application/gzip; name=x', content }])?.contentType,
    'application/gzip; name=x',
  );
  t.equal(reportPartOf([{ filename: 'notes.txt', contentType: 'text/plain', content }]), undefined);
});

t.test('the summary: rates over message counts, our addresses, unknown senders', async (t) => {
  const rows = [
    { day: '2026-11-27', sourceIp: '192.0.2.10', dkim: 'pass', spf: 'pass', count: 160 },
    { day: '2026-11-27', sourceIp: '192.0.2.11', dkim: 'pass', spf: 'fail', count: 30 },
    { day: '2026-11-26', sourceIp: '203.0.113.50', dkim: 'fail', spf: 'fail', count: 10 },
  ];
  const range = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-28T00:00:00Z') };
  const summary = summarize(rows, range, (ip) => ip.startsWith('192.0.2.'));
  t.equal(summary.messages, 200);
  t.equal(summary.dkimAlignedRate, 0.95);
  t.equal(summary.spfAlignedRate, 0.8);
  t.equal(summary.dmarcPassRate, 0.95);
  t.same(
    summary.days.map((d) => [d.date, d.count, d.dmarcPass]),
    [
      ['2026-11-26', 10, 0],
      ['2026-11-27', 190, 190],
    ],
  );
  t.same(summary.unknownSenders, [{ ip: '203.0.113.50', count: 10, failed: 10 }]);
  t.same(
    summary.sources.map((s) => [s.ip, s.ours, s.spfAlignedRate]),
    [
      ['192.0.2.10', true, 1],
      ['192.0.2.11', true, 0],
      ['203.0.113.50', false, 0],
    ],
  );
  t.same(summarize([], range, () => false).dmarcPassRate, 0, 'no mail: rates are 0, not NaN');
});

function feedback(records: string): string {
  return [
    '<?xml version="1.0"?><feedback><report_metadata><org_name>Example</org_name><report_id>r1</report_id>',
    '<date_range><begin>1764201600</begin><end>1764287999</end></date_range></report_metadata>',
    '<policy_published><domain>example.com</domain><p>none</p></policy_published>',
    records,
    '</feedback>',
  ].join('');
}

/** A one-entry zip: `streamed` leaves the local header's sizes zero, as writers that stream do. */
function zip(data: Buffer, method: 0 | 8, streamed: boolean): Buffer {
  const body = method === 8 ? deflateRawSync(data) : data;
  const name = Buffer.from('report.xml');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(method, 8);
  local.writeUInt32LE(streamed ? 0 : body.length, 18);
  local.writeUInt32LE(streamed ? 0 : data.length, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(method, 10);
  central.writeUInt32LE(body.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42);
  return Buffer.concat([local, name, body, central, name]);
}
