import type { ReactionRule } from './shaping.types.js';

/** A reply's basic code and enhanced status code (RFC 3463), as far as they can be read. */
export function replyCodes(reply: string): { code: number | null; enhanced: string | null } {
  // Connection-level failures are recorded as "STAGE: 421 ..."; the reply starts after the stage.
  const text = reply.replace(/^[A-Z ]+:\s*/, '');
  const code = /^(\d{3})[\s-]/.exec(text)?.[1] ?? /^(\d{3})$/.exec(text)?.[1];
  const enhanced = /^\d{3}[\s-]+([245]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1] ?? null;
  return { code: code ? Number(code) : null, enhanced };
}

/**
 * The first reaction rule a reply from `provider` matches: every condition a rule names must
 * hold (codes, enhanced codes, text). Rules are compiled once.
 */
export class ReactionMatcher {
  private readonly rules: Array<ReactionRule & { pattern: RegExp | null }>;

  constructor(private readonly given: ReactionRule[]) {
    this.rules = given.map((rule) => ({ ...rule, pattern: rule.text ? new RegExp(rule.text, 'i') : null }));
  }

  /** The rules in the order they are tried (configured first), as given (the admin API lists them). */
  all(): readonly ReactionRule[] {
    return this.given;
  }

  match(provider: string | null, reply: string): ReactionRule | null {
    const { code, enhanced } = replyCodes(reply);
    // Only temporary and policy replies react: a 2xx never does, and a 5xx only when a rule names its text.
    if (code !== null && code < 400) return null;
    for (const rule of this.rules) {
      if (rule.providers && (!provider || !rule.providers.includes(provider))) continue;
      if (rule.codes && (code === null || !rule.codes.includes(code))) continue;
      if (rule.enhanced && (enhanced === null || !rule.enhanced.includes(enhanced))) continue;
      if (rule.pattern && !rule.pattern.test(reply)) continue;
      if (!rule.codes && !rule.pattern) continue;
      return rule;
    }
    return null;
  }
}
