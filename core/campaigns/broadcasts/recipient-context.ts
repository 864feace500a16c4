import type { ContactLinks } from '../../audience/preferences/contact-links.js';
import type { ContactPropertyService } from '../../audience/properties/contact-property.service.js';
import { parseMailbox } from '../../shared/addresses/mailbox.js';
import type { RecipientLinks } from './broadcast-message.js';

/**
 * What a broadcast's rendering needs beside the contact, shared by the fan-out (the real send)
 * and the preview, so a preview shows exactly what the recipient gets.
 */

/** The team's declared fallback values by lower-cased key (properties without one are left out). */
export async function fallbackValues(properties: ContactPropertyService, teamId: string): Promise<Map<string, string>> {
  return new Map(
    [...(await properties.byKey(teamId))]
      .filter(([, p]) => p.fallbackValue !== null)
      .map(([key, p]) => [key, String(p.fallbackValue)]),
  );
}

/** Where the mailto unsubscribe address lives: the return-path host of the from address's domain. */
export async function unsubscribeMailHost(
  from: string | null,
  returnPathHost: (domainName: string) => Promise<string | null>,
): Promise<string | null> {
  const address = parseMailbox(from ?? '')?.address;
  return address ? returnPathHost(address.slice(address.lastIndexOf('@') + 1)) : null;
}

/** One recipient's signed links, carrying the broadcast so an unsubscribe is attributed to it. */
export function recipientLinks(
  links: ContactLinks,
  contactId: string,
  broadcastId: string,
  mailHost: string | null,
): RecipientLinks {
  return {
    unsubscribeUrl: links.unsubscribeUrl(contactId, broadcastId),
    preferencesUrl: links.preferencesUrl(contactId, broadcastId),
    unsubscribeMailto: mailHost
      ? `mailto:${links.unsubscribeLocalPart(contactId, broadcastId)}@${mailHost}?subject=unsubscribe`
      : null,
  };
}
