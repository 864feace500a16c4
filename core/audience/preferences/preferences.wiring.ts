import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { BrandKit } from '../../platform/teams/team.types.js';
import type { AudienceServices } from '../audience.services.js';
import { ContactLinks } from './contact-links.js';
import { PreferenceService } from './preference.service.js';

/** The signed contact links and the pages behind them. */
export function createPreferenceServices(infra: {
  knex: Knex;
  clock: Clock;
  masterKey: string;
  publicUrl: () => string;
  audience: AudienceServices;
  team: (teamId: string) => Promise<{ name: string; brandKit: BrandKit }>;
}) {
  const contactLinks = new ContactLinks(infra.masterKey, infra.publicUrl);
  const { contacts, topics, consent } = infra.audience;
  return {
    contactLinks,
    preferences: new PreferenceService({ ...infra, links: contactLinks, contacts, topics, consent }),
  };
}
