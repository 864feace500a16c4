import type { z } from 'zod';

/**
 * One structured request to the model: the instructions, the material, and the shape the answer
 * must have (sent as a JSON schema in strict mode, and checked again with zod on the way in).
 */
export type AiCompletionRequest<T> = {
  /** The schema's name (response_format.json_schema.name): subject_lines, draft, diagnosis. */
  name: string;
  system: string;
  user: string;
  /** A JSON schema in OpenAI's strict subset: every property required, no other properties. */
  jsonSchema: Record<string, unknown>;
  /** The same shape with the limits a JSON schema cannot carry to every server. */
  reply: z.ZodType<T>;
};

/**
 * A language model behind the AI helpers (ai.provider). `complete` answers the parsed, validated
 * reply or throws ServiceUnavailableError: a provider that cannot answer, answers late, or answers
 * something that does not validate is a failure on the service's side, which costs no credit.
 */
export interface AiProvider {
  readonly kind: 'none' | 'openai-compatible';
  /** False for `none`: the AI routes answer 503 and AI assist cannot be switched on. */
  readonly configured: boolean;
  complete<T>(request: AiCompletionRequest<T>): Promise<T>;
}

/** A team's AI credits this calendar month (UTC), after the request being answered. */
export type AiCredits = { limit: number; used: number; remaining: number };

export type SubjectSuggestions = { suggestions: string[]; credits: AiCredits };

export type AiDraft = { html: string; text: string; credits: AiCredits };

/** `provider_failure`: the email failed on this appliance's own mail servers (answered without the model). */
export type DiagnosisCause = 'provider_failure' | null;

export type StoredDiagnosis = {
  id: string;
  teamId: string;
  emailId: string;
  stateHash: string;
  summary: string;
  likelyCauses: string[];
  nextSteps: string[];
  cause: DiagnosisCause;
  createdAt: Date;
};

export type Diagnosis = StoredDiagnosis & { stored: boolean; credits: AiCredits };

export const DRAFT_TONES = ['neutral', 'friendly', 'formal'] as const;
export type DraftTone = (typeof DRAFT_TONES)[number];
