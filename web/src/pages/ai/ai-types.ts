/** The AI helpers' answers (spec: "AI results"), as the dashboard reads them. */
export type AiCredits = { limit: number; used: number; remaining: number };

type Spent = { credits_remaining: number; credits: AiCredits };

export type SubjectSuggestions = Spent & { object: 'ai_subject_suggestions'; suggestions: string[] };

export type AiDraft = Spent & { object: 'ai_draft'; html: string; text: string };

export type Diagnosis = Spent & {
  object: 'ai_diagnosis';
  summary: string;
  likely_causes: string[];
  next_steps: string[];
  cause: 'provider_failure' | null;
  created_at: string;
  stored: boolean;
};

export const TONES = ['neutral', 'friendly', 'formal'] as const;
export type Tone = (typeof TONES)[number];
