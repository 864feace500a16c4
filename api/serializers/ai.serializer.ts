import type { AiCredits, AiDraft, Diagnosis, SubjectSuggestions } from '../../core/ai/ai.types.js';

/** Spec, AI results: every answer carries the team's credits after the request. */
function creditFields(credits: AiCredits) {
  return {
    credits_remaining: credits.remaining,
    credits: { limit: credits.limit, used: credits.used, remaining: credits.remaining },
  };
}

export function serializeSubjectSuggestions(result: SubjectSuggestions) {
  return {
    object: 'ai_subject_suggestions' as const,
    suggestions: result.suggestions,
    ...creditFields(result.credits),
  };
}

export function serializeDraft(result: AiDraft) {
  return { object: 'ai_draft' as const, html: result.html, text: result.text, ...creditFields(result.credits) };
}

export function serializeDiagnosis(result: Diagnosis) {
  return {
    object: 'ai_diagnosis' as const,
    summary: result.summary,
    likely_causes: result.likelyCauses,
    next_steps: result.nextSteps,
    cause: result.cause,
    created_at: result.createdAt.toISOString(),
    stored: result.stored,
    ...creditFields(result.credits),
  };
}
