import { createHash, X509Certificate } from 'node:crypto';
import { checkServerIdentity } from 'node:tls';

/** One TLSA record (RFC 6698 2.1): certificate usage, selector, matching type, association data. */
export type TlsaRecord = { usage: number; selector: number; matchingType: number; data: Buffer };

const DANE_TA = 2;
const DANE_EE = 3;

/**
 * The records SMTP may use (RFC 7672 3.1): DANE-TA(2) and DANE-EE(3) with a known selector
 * (0 full certificate, 1 public key) and matching type (0 exact, 1 SHA-256, 2 SHA-512).
 * PKIX-TA(0) and PKIX-EE(1) are unusable for SMTP: there is no agreed CA list between MTAs.
 */
export function usableTlsa(records: TlsaRecord[]): TlsaRecord[] {
  return records.filter((r) => (r.usage === DANE_TA || r.usage === DANE_EE) && r.selector <= 1 && r.matchingType <= 2);
}

export const tlsaText = (r: TlsaRecord): string =>
  `${r.usage} ${r.selector} ${r.matchingType} ${r.data.toString('hex')}`;

function associated(record: TlsaRecord, cert: X509Certificate): boolean {
  const selected = record.selector === 0 ? cert.raw : cert.publicKey.export({ type: 'spki', format: 'der' });
  const value =
    record.matchingType === 0
      ? selected
      : createHash(record.matchingType === 1 ? 'sha256' : 'sha512')
          .update(selected)
          .digest();
  return value.equals(record.data);
}

export type DaneVerdict = { ok: true } | { ok: false; detail: string };

/**
 * Whether the chain the server presented (leaf first, DER) satisfies the usable records:
 * DANE-EE matches the leaf alone, with no name or date checks (RFC 7672 3.1.1); DANE-TA matches
 * a certificate of the chain that the leaf chains up to by signature, and then the leaf must be
 * in date and name the MX host (3.1.2, 3.2.2).
 */
export function matchTlsa(records: TlsaRecord[], chainDer: Buffer[], mxHost: string, now = new Date()): DaneVerdict {
  const chain = chainDer.map((der) => new X509Certificate(der));
  const leaf = chain[0];
  if (!leaf) return { ok: false, detail: 'the server presented no certificate' };
  if (records.some((r) => r.usage === DANE_EE && associated(r, leaf))) return { ok: true };
  const anchors = records.filter((r) => r.usage === DANE_TA);
  const anchorAt = chain.findIndex((cert) => anchors.some((r) => associated(r, cert)));
  if (anchorAt < 0) return { ok: false, detail: 'no certificate of the chain matches a TLSA record' };
  for (let i = 0; i < anchorAt; i++) {
    const issuer = chain[i + 1]!;
    if (!chain[i]!.checkIssued(issuer) || !chain[i]!.verify(issuer.publicKey))
      return { ok: false, detail: `certificate ${i} of the chain is not signed by the next one` };
  }
  if (now < new Date(leaf.validFrom) || now > new Date(leaf.validTo))
    return { ok: false, detail: `the certificate is out of date (valid ${leaf.validFrom} to ${leaf.validTo})` };
  const nameError = checkServerIdentity(mxHost, {
    subject: { CN: /CN=([^\n,]+)/.exec(leaf.subject)?.[1] ?? '' },
    subjectaltname: leaf.subjectAltName ?? '',
  } as never);
  if (nameError) return { ok: false, detail: nameError.message };
  return { ok: true };
}
