import type { DnsLookup } from '../../../lib/dns/dns-resolver.js';
import { expectedRecords, type RecordTargets } from '../../sending/domains/domain-records.js';
import type { DnsRecord, Domain } from '../../sending/domains/domain.types.js';
import { result, unanswered, type CheckResult } from './doctor.types.js';

const lower = (name: string) => name.toLowerCase().replace(/\.$/, '');
const recordOf = (domain: Domain, targets: RecordTargets, id: string): DnsRecord =>
  expectedRecords(domain, [], targets).find((record) => record.id === id)!;

/**
 * The return-path name's MX points at this appliance's MTA: bounces to the return path come back
 * here (and are read), and receivers that check the envelope sender's domain find a mail host.
 */
export async function checkReturnPathMx(
  lookup: DnsLookup,
  domain: Domain,
  targets: RecordTargets,
): Promise<CheckResult> {
  const expected = recordOf(domain, targets, 'return_path_mx');
  const subject = expected.fqdn;
  const mx = await lookup.mx(expected.fqdn);
  if (mx.kind === 'temporary') return unanswered('return_path_mx', subject, expected.fqdn, mx.error);
  if (mx.kind === 'none')
    return result('return_path_mx', subject, 'fail', `no MX record at ${expected.fqdn}: bounces cannot come back`);
  const ours = mx.values.filter((entry) => lower(entry.exchange) === lower(targets.mtaHostname));
  const exchanges = mx.values.map((entry) => `${entry.exchange} (${entry.priority})`).join(', ');
  if (ours.length === 0)
    return result('return_path_mx', subject, 'fail', `MX points at ${exchanges}, not at ${targets.mtaHostname}`);
  if (ours.length < mx.values.length)
    return result(
      'return_path_mx',
      subject,
      'warn',
      `MX is ${exchanges}: bounces may go to a host other than ${targets.mtaHostname}`,
    );
  return result('return_path_mx', subject, 'ok', `MX points at ${targets.mtaHostname}`);
}

/** The tracking name is a CNAME to this appliance's tracking host, so opens and clicks reach it. */
export async function checkTrackingCname(
  lookup: DnsLookup,
  domain: Domain,
  targets: RecordTargets,
): Promise<CheckResult> {
  const expected = recordOf(domain, targets, 'tracking');
  const subject = expected.fqdn;
  const cname = await lookup.cname(expected.fqdn);
  if (cname.kind === 'temporary') return unanswered('tracking', subject, expected.fqdn, cname.error);
  if (cname.kind === 'none')
    return result('tracking', subject, 'fail', `no CNAME at ${expected.fqdn}: tracked links and the pixel break`);
  if (!cname.values.some((value) => lower(value) === lower(targets.trackingHost)))
    return result(
      'tracking',
      subject,
      'fail',
      `CNAME points at ${cname.values.join(', ')}, not at ${targets.trackingHost}`,
    );
  return result('tracking', subject, 'ok', `CNAME points at ${targets.trackingHost}`);
}
