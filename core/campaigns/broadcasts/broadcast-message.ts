import type { Contact } from '../../audience/contacts/contact.types.js';
import { EMPTY_BRAND_KIT, type BrandKit, type PostalAddress } from '../../platform/teams/team.types.js';
import { escapeHtml } from '../../../lib/text/escape-html.js';
import { brandValues } from '../../sending/templates/placeholders.js';
import { mergeHtml, mergeText, namesUnsubscribeLink, type MergeValues } from './merge-variables.js';
import type { Broadcast } from './broadcast.types.js';

export type RecipientLinks = {
  unsubscribeUrl: string;
  preferencesUrl: string;
  /** The mailto unsubscribe URI at the inbound MX, for mail clients that only send mail (RFC 2369). */
  unsubscribeMailto?: string | null;
};

/** What one recipient's email says: subject, bodies and the one-click headers. */
export type RecipientMessage = {
  subject: string;
  html: string | undefined;
  text: string | undefined;
  headers: Record<string, string>;
};

export function postalLines(address: PostalAddress | null): string[] {
  if (!address) return [];
  const cityLine = [address.postal_code, address.city, address.state].filter(Boolean).join(' ');
  return [address.line1, address.line2, cityLine, address.country].filter((line): line is string => Boolean(line));
}

/**
 * Renders a broadcast for one contact: merge variables resolved (inline default, then the
 * property's fallback, then empty), a hidden preview line, and, when the body names neither
 * UNSUBSCRIBE_URL nor PREFERENCES_URL, a footer with an unsubscribe link and the team's postal
 * address. Brand tokens take the team's brand kit. Every recipient gets List-Unsubscribe with the one-click URL (and a mailto to the
 * inbound MX) and List-Unsubscribe-Post (RFC 8058); the MTA signs both with DKIM.
 */
export function renderForRecipient(
  broadcast: Broadcast,
  contact: Contact,
  values: Map<string, string>,
  fallbacks: Map<string, string>,
  links: RecipientLinks,
  postal: PostalAddress | null,
  brand: BrandKit = EMPTY_BRAND_KIT,
): RecipientMessage {
  const lowerValues = new Map([...values].map(([key, value]) => [key.toLowerCase(), value]));
  const merge: MergeValues = {
    lookup(key) {
      switch (key) {
        case 'FIRST_NAME':
          return contact.firstName;
        case 'LAST_NAME':
          return contact.lastName;
        case 'EMAIL':
          return contact.email;
        case 'UNSUBSCRIBE_URL':
          return links.unsubscribeUrl;
        case 'PREFERENCES_URL':
          return links.preferencesUrl;
      }
      return values.get(key) ?? lowerValues.get(key.toLowerCase()) ?? null;
    },
    fallback: (key) => fallbacks.get(key.toLowerCase()) ?? null,
    brand: brandValues(brand),
  };
  const footer = !namesUnsubscribeLink(broadcast.html, broadcast.text);
  const lines = postalLines(postal);
  let html = broadcast.html === null ? undefined : mergeHtml(broadcast.html, merge);
  let text = broadcast.text === null ? undefined : mergeText(broadcast.text, merge);
  if (html !== undefined && broadcast.previewText)
    html = `<div style="display:none;max-height:0;overflow:hidden">${escapeHtml(broadcast.previewText)}</div>${html}`;
  if (footer && html !== undefined) {
    const block = `<p style="font-size:12px;color:#6b7280;margin-top:24px">${lines.map(escapeHtml).join('<br>')}${lines.length > 0 ? '<br>' : ''}<a href="${escapeHtml(links.unsubscribeUrl)}">Unsubscribe</a></p>`;
    html = /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${block}</body>`) : `${html}${block}`;
  }
  if (footer && text !== undefined)
    text = `${text}\n\n--\n${[...lines, `Unsubscribe: ${links.unsubscribeUrl}`].join('\n')}\n`;
  return {
    subject: mergeText(broadcast.subject ?? '', merge),
    html,
    text,
    headers: {
      'List-Unsubscribe': links.unsubscribeMailto
        ? `<${links.unsubscribeUrl}>, <${links.unsubscribeMailto}>`
        : `<${links.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
