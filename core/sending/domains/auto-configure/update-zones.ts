import { readFileSync } from 'node:fs';
import type { Config } from '../../../../lib/config/config.schema.js';
import {
  DnsServerUnreachableError,
  sendUpdate,
  type UpdateAnswer,
  type UpdateRequest,
} from '../../../../lib/dns/dns-update.js';
import { parseTsigSecret, type TsigKey } from '../../../../lib/dns/tsig.js';
import { ServiceUnavailableError, UnprocessableValidationError } from '../../../../lib/errors.js';

export type UpdateZoneConfig = Config['dns']['updateZones'][number];

/** Why a server may refuse, in the operator's words: what to look at in its configuration. */
const RCODE_HINTS: Record<string, string> = {
  REFUSED: 'the server does not let this key update the zone (allow-update or update-policy)',
  NOTAUTH: 'the server is not the primary for the zone, or did not accept the TSIG key',
  NOTZONE: 'a record is outside the zone',
  SERVFAIL: 'the server failed to apply the update (see its log)',
  FORMERR: 'the server could not read the update',
  NOTIMP: 'the server does not implement DNS UPDATE',
};

/** The configured zone a name belongs to: the longest one (a delegated subzone over its parent). */
export function zoneFor(zones: readonly UpdateZoneConfig[], name: string): UpdateZoneConfig | undefined {
  const lower = name.toLowerCase();
  return zones
    .filter((zone) => lower === zone.zone || lower.endsWith(`.${zone.zone}`))
    .sort((a, b) => b.zone.length - a.zone.length)[0];
}

export function requireZone(zones: readonly UpdateZoneConfig[], name: string): UpdateZoneConfig {
  const zone = zoneFor(zones, name);
  if (!zone)
    throw new UnprocessableValidationError(
      `No DNS UPDATE zone is configured for ${name}: the operator adds its zone to dns.updateZones, or the records are published by hand`,
    );
  return zone;
}

/** Read at each use, so a key the operator replaces in its file applies without a restart. */
function loadKey(zone: UpdateZoneConfig): TsigKey {
  let text: string;
  try {
    text = readFileSync(zone.keySecretFile, 'utf8');
  } catch {
    throw new ServiceUnavailableError(
      `The TSIG key of zone ${zone.zone} cannot be read (dns.updateZones keySecretFile)`,
    );
  }
  const secret = parseTsigSecret(text);
  if (!secret) throw new ServiceUnavailableError(`The TSIG key file of zone ${zone.zone} holds no base64 secret`);
  return { name: zone.keyName, algorithm: zone.keyAlgorithm, secret };
}

/**
 * Sends one UPDATE to the zone's primary and turns its answer into the appliance's errors:
 * a refusal is 422 with the RCODE in details (the operator's server said no: retrying will not
 * help), no answer or an answer we cannot authenticate is 503 (try again later).
 * `accept`: RCODEs that are an expected outcome (YXRRSET of a prerequisite), returned as is.
 */
export async function applyUpdate(
  zone: UpdateZoneConfig,
  request: Omit<UpdateRequest, 'zone'>,
  timeoutMs: number,
  accept: readonly string[] = [],
): Promise<UpdateAnswer> {
  const server = { host: zone.server, port: zone.port, key: loadKey(zone), timeoutMs };
  let answer: UpdateAnswer;
  try {
    answer = await sendUpdate(server, { ...request, zone: zone.zone });
  } catch (err) {
    if (err instanceof DnsServerUnreachableError)
      throw new ServiceUnavailableError(`The DNS server of zone ${zone.zone} did not answer: ${err.message}`);
    throw err;
  }
  if (answer.rcode === 'NOERROR' || accept.includes(answer.rcode)) {
    if (answer.authenticated) return answer;
    throw new ServiceUnavailableError(
      `The answer from the DNS server of zone ${zone.zone} is not signed with its key (${answer.tsigError}); the update is not trusted to be applied`,
    );
  }
  const tsig = answer.tsigError ? ` (TSIG ${answer.tsigError})` : '';
  throw new UnprocessableValidationError(
    `The DNS server refused the update of zone ${zone.zone}: ${answer.rcode}${tsig}; ${RCODE_HINTS[answer.rcode] ?? 'see its log'}`,
    {
      details: {
        rcode: answer.rcode,
        zone: zone.zone,
        ...(answer.tsigError ? { tsig_error: answer.tsigError } : {}),
      },
    },
  );
}
