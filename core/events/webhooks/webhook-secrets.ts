import type { SecretBox } from '../../../lib/crypto/secret-box.js';
import type { WebhookEndpoint } from './webhook.types.js';

/**
 * The secrets that sign an endpoint's deliveries now: the current one, and during a rotation's
 * grace period the previous one too (newest first), so receivers never see a gap.
 */
export function secretsInEffect(endpoint: WebhookEndpoint, box: SecretBox, now: Date): string[] {
  const secrets = [box.open(endpoint.secretSealed)];
  if (
    endpoint.previousSecretSealed &&
    endpoint.previousSecretExpiresAt &&
    endpoint.previousSecretExpiresAt.getTime() > now.getTime()
  ) {
    secrets.push(box.open(endpoint.previousSecretSealed));
  }
  return secrets;
}
