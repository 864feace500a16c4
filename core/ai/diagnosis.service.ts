import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Team } from '../platform/teams/team.types.js';
import type { Email } from '../sending/emails/email.types.js';
import type { AiAccess } from './ai-access.js';
import type { AiRequestContext } from './ai-assist.service.js';
import { diagnosisPrompt } from './ai-prompts.js';
import { diagnosisReply } from './ai-replies.js';
import type { AiProvider, Diagnosis, StoredDiagnosis } from './ai.types.js';
import {
  diagnosisFacts,
  readEmailState,
  redactorOf,
  type DiagnosisSources,
  type EmailState,
} from './diagnosis-facts.js';
import type { DiagnosisRepository } from './diagnosis.repository.js';
import { ownFailure } from './own-failure.js';

export type DiagnosisDeps = {
  clock: Clock;
  provider: AiProvider;
  access: AiAccess;
  repository: DiagnosisRepository;
  sources: DiagnosisSources;
  /** The team's email; another team's or an unknown id is 404. */
  findEmail: (teamId: string, emailId: string) => Promise<Email>;
};

/**
 * POST /emails/{id}/diagnose. The email is looked up first (404), then checks 1 and 2 (AI
 * configured, AI assist on). Answers that cost nothing come next, before checks 3 and 4 (which
 * guard credits and the model): a diagnosis already made for this state of the email (`stored:
 * true`), and an email that failed on this appliance's own mail servers (`cause:
 * 'provider_failure'`, made without the model and stored like any other). Otherwise the model is
 * asked, from facts without addresses or content, and the diagnosis commits with its credit.
 */
export class DiagnosisService {
  constructor(private readonly deps: DiagnosisDeps) {}

  async diagnose(team: Team, emailId: string, request: AiRequestContext): Promise<Diagnosis> {
    const email = await this.deps.findEmail(team.id, emailId);
    this.deps.access.assertEnabled(team);
    const state = await readEmailState(this.deps.sources, email);
    const stored = await this.deps.repository.find(team.id, email.id, state.hash);
    if (stored) return { ...stored, stored: true, credits: await this.deps.access.credits(team) };
    const reasons = ownFailure(state.events, state.deliveries);
    if (reasons) {
      const diagnosis = this.ownFailureDiagnosis(state, reasons);
      this.deps.repository.addWithin(request.unit, diagnosis);
      return { ...diagnosis, stored: false, credits: await this.deps.access.credits(team) };
    }
    const before = await this.deps.access.admit(team);
    const redactor = redactorOf(state);
    const facts = await diagnosisFacts(this.deps.sources, state, this.deps.clock.now(), redactor);
    const reply = await this.deps.provider.complete({ ...diagnosisReply, ...diagnosisPrompt(facts) });
    // The model wrote placeholders; the person who asked reads their own addresses.
    const restore = (text: string) => redactor.restore(text);
    const diagnosis: StoredDiagnosis = {
      ...this.base(state),
      summary: restore(reply.summary),
      likelyCauses: reply.likely_causes.map(restore),
      nextSteps: reply.next_steps.map(restore),
      cause: null,
    };
    this.deps.repository.addWithin(request.unit, diagnosis);
    const credits = this.deps.access.spend(request.unit, team.id, diagnosis.id, before);
    return { ...diagnosis, stored: false, credits };
  }

  /** Stored diagnoses past their team's plan retention (the purge-ai-diagnoses job). */
  purgeExpired(): Promise<number> {
    return this.deps.repository.purgeExpired(this.deps.clock.now());
  }

  private base(state: EmailState) {
    return {
      id: newId(),
      teamId: state.email.teamId,
      emailId: state.email.id,
      stateHash: state.hash,
      createdAt: this.deps.clock.now(),
    };
  }

  /** Written here, not by the model: what failed is ours, and the sender has nothing to fix. */
  private ownFailureDiagnosis(state: EmailState, reasons: string[]): StoredDiagnosis {
    return {
      ...this.base(state),
      summary:
        'This email was not delivered because of a failure on the mail servers of this service, not because of the email, its recipients or their mail servers.',
      likelyCauses: reasons.map((reason) => `The service's mail servers reported: ${reason}`),
      nextSteps: [
        'Nothing in the email or your domain needs to change.',
        'If the email is still queued it will be retried automatically; otherwise send it again, or ask the operator of this service to look at their mail servers.',
      ],
      cause: 'provider_failure',
    };
  }
}
