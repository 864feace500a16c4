import type { Knex } from 'knex';
import { UnprocessableValidationError } from '../../../lib/errors.js';
import type { ContactService } from '../../audience/contacts/contact.service.js';
import type { ContactLinks } from '../../audience/preferences/contact-links.js';
import type { ContactPropertyService } from '../../audience/properties/contact-property.service.js';
import type { Team } from '../../platform/teams/team.types.js';
import { renderForRecipient } from './broadcast-message.js';
import type { BroadcastService } from './broadcast.service.js';
import type { Broadcast } from './broadcast.types.js';
import { mergeProblems } from './merge-variables.js';
import { fallbackValues, recipientLinks, unsubscribeMailHost } from './recipient-context.js';
import { RecipientPageRepository } from './recipient-page.repository.js';

export type BroadcastPreviewDeps = {
  knex: Knex;
  broadcasts: BroadcastService;
  contacts: ContactService;
  properties: ContactPropertyService;
  links: ContactLinks;
  /** `<return-path label>.<domain>` of the team's verified domain `name` (as the fan-out has it). */
  returnPathHost: (teamId: string, domainName: string) => Promise<string | null>;
};

/** Content not yet saved that the preview renders instead of the stored draft's (the editor's live preview). */
export type PreviewOverrides = {
  subject?: string;
  preview_text?: string | null;
  html?: string | null;
  text?: string | null;
};

export type BroadcastPreview = {
  broadcast: Broadcast;
  contactId: string;
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
};

/**
 * A broadcast rendered for one contact with the fan-out's own code (renderForRecipient, the same
 * values, fallbacks and signed links): merge variables resolved, the hidden preview line, and
 * the footer with the unsubscribe link and postal address when the body names no link. Nothing
 * is sent or stored. The links are real (they carry the broadcast), as the recipient would get.
 */
export class BroadcastPreviewer {
  constructor(private readonly deps: BroadcastPreviewDeps) {}

  async render(team: Team, broadcastId: string, contactRef: string, overrides: PreviewOverrides = {}) {
    const stored = await this.deps.broadcasts.get(team.id, broadcastId);
    const problems = mergeProblems({ subject: overrides.subject, html: overrides.html, text: overrides.text });
    if (problems.length > 0)
      throw new UnprocessableValidationError(`${problems[0]!.path}: ${problems[0]!.message}`, { errors: problems });
    const broadcast: Broadcast = {
      ...stored,
      ...(overrides.subject !== undefined ? { subject: overrides.subject } : {}),
      ...(overrides.preview_text !== undefined ? { previewText: overrides.preview_text } : {}),
      ...(overrides.html !== undefined ? { html: overrides.html } : {}),
      ...(overrides.text !== undefined ? { text: overrides.text } : {}),
    };
    const contact = await this.deps.contacts.find(team.id, contactRef);
    const [values, fallbacks, mailHost] = await Promise.all([
      new RecipientPageRepository(this.deps.knex).values([contact.id]),
      fallbackValues(this.deps.properties, team.id),
      unsubscribeMailHost(broadcast.from, (name) => this.deps.returnPathHost(team.id, name)),
    ]);
    const message = renderForRecipient(
      broadcast,
      contact,
      values.get(contact.id) ?? new Map(),
      fallbacks,
      recipientLinks(this.deps.links, contact.id, broadcast.id, mailHost),
      team.postalAddress,
      team.brandKit,
    );
    return {
      broadcast,
      contactId: contact.id,
      subject: message.subject,
      html: message.html ?? null,
      text: message.text ?? null,
      headers: message.headers,
    } satisfies BroadcastPreview;
  }
}
