import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config/config.schema.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import type { Logger } from '../../lib/logger.js';
import type { Email } from '../sending/emails/email.types.js';
import { AiAccess, type AiUsage } from './ai-access.js';
import { AiAssistService, type TemplateMaterial } from './ai-assist.service.js';
import { createAiProvider } from './ai-provider.js';
import type { DiagnosisSources } from './diagnosis-facts.js';
import { DiagnosisRepository } from './diagnosis.repository.js';
import { DiagnosisService } from './diagnosis.service.js';

export type AiInfrastructure = {
  knex: Knex;
  clock: Clock;
  kv: KeyValueStore;
  config: Config;
  logger: Logger;
  /** The usage ledger: credits are its `ai_credits` records. */
  usage: AiUsage;
  /** A team's template by id or alias (the sending group's). */
  template: (teamId: string, idOrAlias: string) => Promise<TemplateMaterial>;
  /** A team's sent email (the sending group's). */
  findEmail: (teamId: string, emailId: string) => Promise<Email>;
  /** What the other groups know of an email, for a diagnosis. */
  sources: DiagnosisSources;
};

/** The AI helpers: the configured model, the spec's checks and credits, subject lines, drafts, diagnoses. */
export function createAiServices(infra: AiInfrastructure) {
  const { knex, clock, kv } = infra;
  const provider = createAiProvider(infra.config.ai, (details, message) => infra.logger.warn(details, message));
  const access = new AiAccess({ configured: provider.configured, clock, kv, usage: infra.usage });
  return {
    aiProvider: provider,
    /** The spec's four checks and the credits, shared by every feature that asks the model (the inbox agent too). */
    aiAccess: access,
    aiAssist: new AiAssistService({ provider, access, template: infra.template }),
    aiDiagnosis: new DiagnosisService({
      clock,
      provider,
      access,
      repository: new DiagnosisRepository(knex),
      sources: infra.sources,
      findEmail: infra.findEmail,
    }),
  };
}

export type AiServices = ReturnType<typeof createAiServices>;
