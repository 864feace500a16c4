import type { Config } from '../../lib/config/config.schema.js';
import { ServiceUnavailableError } from '../../lib/errors.js';
import type { AiProvider } from './ai.types.js';
import { OpenAiCompatibleProvider } from './openai-compatible.provider.js';

/** The message of every refusal for an appliance without a model (check 1 of the AI routes). */
export const AI_NOT_CONFIGURED =
  'AI is not configured on this appliance: the operator sets ai.provider (see docs/operating/ai.md)';

/** `ai.provider: none`, the default: nothing to call, every AI route answers 503. */
export const noAiProvider: AiProvider = {
  kind: 'none',
  configured: false,
  async complete() {
    throw new ServiceUnavailableError(AI_NOT_CONFIGURED);
  },
};

/** The provider the configuration names (the schema has checked that baseUrl and model are set). */
export function createAiProvider(
  config: Config['ai'],
  warn: (details: Record<string, unknown>, message: string) => void,
): AiProvider {
  if (config.provider === 'none') return noAiProvider;
  return new OpenAiCompatibleProvider({
    baseUrl: config.baseUrl!,
    model: config.model!,
    apiKey: config.apiKey,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    maxOutputTokens: config.maxOutputTokens,
    warn,
  });
}
