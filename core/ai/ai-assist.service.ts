import type { UnitOfWork } from '../../db/unit-of-work.js';
import { MissingRequiredFieldError } from '../../lib/errors.js';
import type { Team } from '../platform/teams/team.types.js';
import type { AiAccess } from './ai-access.js';
import { draftPrompt, subjectLinesPrompt } from './ai-prompts.js';
import { draftReply, subjectLinesReply } from './ai-replies.js';
import { hasSubjectMaterial, type DraftInput, type SubjectLinesInput } from './ai.schemas.js';
import type { AiDraft, AiProvider, SubjectSuggestions } from './ai.types.js';

/** A template's current content, as the helpers read it. */
export type TemplateMaterial = { subject: string | null; html: string; text: string | null };

export type AiAssistDeps = {
  provider: AiProvider;
  access: AiAccess;
  /** The team's template by id or alias (its current version); another team's is 404. */
  template: (teamId: string, idOrAlias: string) => Promise<TemplateMaterial>;
};

/** Where an answer's credit is recorded: the request's unit of work, and its id for the audit. */
export type AiRequestContext = { unit: UnitOfWork; requestId: string };

/**
 * POST /ai/subject-lines and POST /ai/draft. The input is checked first (a template another team
 * owns is 404, as on every route), then the spec's four checks, then the model; one credit is
 * spent only once the model's answer has validated. Nothing is saved or sent.
 */
export class AiAssistService {
  constructor(private readonly deps: AiAssistDeps) {}

  async subjectLines(team: Team, input: SubjectLinesInput, request: AiRequestContext): Promise<SubjectSuggestions> {
    if (!hasSubjectMaterial(input))
      throw new MissingRequiredFieldError('Send at least one of subject, html, text, audience, template_id', {
        errors: [{ path: '', message: 'at least one field is required' }],
      });
    const template = input.template_id ? await this.deps.template(team.id, input.template_id) : null;
    this.deps.access.assertEnabled(team);
    const before = await this.deps.access.admit(team);
    // What the request gives wins over the template's own content.
    const ownBody = Boolean(input.text?.trim() || input.html?.trim());
    const prompt = subjectLinesPrompt({
      subject: input.subject ?? template?.subject,
      text: ownBody ? input.text : template?.text,
      html: ownBody ? input.html : template?.html,
      audience: input.audience,
    });
    const reply = await this.deps.provider.complete({ ...subjectLinesReply, ...prompt });
    const credits = this.deps.access.spend(request.unit, team.id, request.requestId, before);
    return { suggestions: reply.suggestions, credits };
  }

  async draft(team: Team, input: DraftInput, request: AiRequestContext): Promise<AiDraft> {
    const template = input.template_id ? await this.deps.template(team.id, input.template_id) : null;
    this.deps.access.assertEnabled(team);
    const before = await this.deps.access.admit(team);
    const prompt = draftPrompt({
      brief: input.brief,
      tone: input.tone ?? 'neutral',
      existingHtml: input.existing_html ?? template?.html,
    });
    const reply = await this.deps.provider.complete({ ...draftReply, ...prompt });
    const credits = this.deps.access.spend(request.unit, team.id, request.requestId, before);
    return { html: reply.html, text: reply.text, credits };
  }
}
