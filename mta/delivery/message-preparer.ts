import type { Domain } from '../../core/sending/domains/domain.types.js';
import type { Email } from '../../core/sending/emails/email.types.js';
import type { Services } from '../../app/services.js';
import type { ProcessMetrics } from '../../lib/metrics/process-metrics.js';
import { DkimSigner, type DkimSigningKey } from '../dkim/dkim-signer.js';

/** A message ready for the wire: signed bytes and the envelope sender. */
export type PreparedMessage = { bytes: Buffer; envelopeFrom: string };

const KEY_CACHE_MS = 60_000;

/**
 * Turns an accepted email into what goes on the wire: the stored MIME, DKIM-signed with the
 * domain's active key(s), and a return path on the domain's return-path label that names the
 * email (VERP), so an asynchronous bounce can be matched to it later.
 */
export class MessagePreparer {
  private readonly signer = new DkimSigner();
  private readonly keys = new Map<string, { at: number; keys: DkimSigningKey[] }>();

  constructor(
    private readonly services: Services,
    private readonly metrics?: ProcessMetrics,
  ) {}

  /**
   * The domain as it is now (a change of its tls setting or return path takes effect within
   * the look-up cache's second) and its decrypted signing keys, cached for a minute: a
   * rotation is picked up within that time.
   */
  async domain(domainId: string): Promise<{ domain: Domain | undefined; keys: DkimSigningKey[] }> {
    const domain = await this.services.domains.current(domainId);
    if (!domain) return { domain, keys: [] };
    const cached = this.keys.get(domainId);
    if (cached && Date.now() - cached.at < KEY_CACHE_MS) return { domain, keys: cached.keys };
    const keys = (await this.services.domains.signingKeys(domainId)).map((key) => ({
      domain: domain.name,
      selector: key.selector,
      algorithm: key.algorithm,
      privateKeyPem: key.privateKeyPem,
    }));
    this.keys.set(domainId, { at: Date.now(), keys });
    return { domain, keys };
  }

  async prepare(email: Email, domain: Domain, keys: DkimSigningKey[]): Promise<PreparedMessage | null> {
    const mime = await this.services.emails.mime(email);
    if (!mime) return null;
    // Signed on the thread pool: a claim's messages are prepared at once, and the event loop
    // keeps serving the connections meanwhile.
    if (keys.length === 0) return { bytes: mime, envelopeFrom: returnPath(email, domain) };
    const started = performance.now();
    const bytes = await this.signer.signAsync(mime, keys);
    this.metrics?.dkimSignSeconds.observe((performance.now() - started) / 1000);
    return { bytes, envelopeFrom: returnPath(email, domain) };
  }
}

/** bounces+<email id>@<return-path label>.<domain>: the MX of that name points at this appliance. */
export function returnPath(email: Email, domain: Domain): string {
  return `bounces+${email.id}@${domain.customReturnPath}.${domain.name}`;
}
