import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, OpenAIError } from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { ServiceUnavailableError } from '../../lib/errors.js';
import type { AiCompletionRequest, AiProvider } from './ai.types.js';

export type OpenAiCompatibleOptions = {
  baseUrl: string;
  model: string;
  /** Absent: a local server that wants no key (no Authorization header is sent at all). */
  apiKey?: string;
  timeoutMs: number;
  maxRetries: number;
  maxOutputTokens?: number;
  /** Where the operator reads why a call failed (the team sees a short message). */
  warn: (details: Record<string, unknown>, message: string) => void;
};

/**
 * Any server that speaks OpenAI's chat completions API, through the official `openai` SDK:
 * OpenAI itself, another hosted API, or a model on the operator's own hardware (Ollama,
 * llama.cpp's server, vLLM). Every answer is requested with structured output (a JSON schema in
 * strict mode) and checked again here; whatever goes wrong on the provider's side becomes
 * `503 service_unavailable`.
 */
export class OpenAiCompatibleProvider implements AiProvider {
  readonly kind = 'openai-compatible' as const;
  readonly configured = true;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.client = new OpenAI({
      // Every option the SDK would otherwise read from OPENAI_* variables is given here, so the
      // process environment never changes where prompts go or what credentials they carry.
      apiKey: options.apiKey ?? 'no-key',
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      baseURL: options.baseUrl,
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries,
      // The SDK's own logging (OPENAI_LOG=debug) would print prompts: never.
      logLevel: 'off',
      ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    });
  }

  async complete<T>(request: AiCompletionRequest<T>): Promise<T> {
    let completion: ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({
        model: this.options.model,
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.user },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: { name: request.name, strict: true, schema: request.jsonSchema },
        },
        ...(this.options.maxOutputTokens ? { max_tokens: this.options.maxOutputTokens } : {}),
      });
    } catch (err) {
      throw this.failure(err, request.name);
    }
    return this.parse(completion, request);
  }

  private parse<T>(completion: ChatCompletion, request: AiCompletionRequest<T>): T {
    const choice = completion.choices?.[0];
    if (!choice?.message) return this.refuse(request.name, 'no_choice', 'The AI provider returned no answer');
    if (choice.message.refusal)
      return this.refuse(request.name, 'refusal', 'The model declined to answer this request');
    if (choice.finish_reason === 'length')
      return this.refuse(request.name, 'length', 'The model’s answer was cut off before it was complete');
    let value: unknown;
    try {
      value = JSON.parse(choice.message.content ?? '');
    } catch {
      return this.refuse(request.name, 'not_json', 'The model’s answer was not the JSON that was asked for');
    }
    const parsed = request.reply.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
      return this.refuse(request.name, 'invalid', 'The model’s answer did not have the expected shape', { issues });
    }
    return parsed.data;
  }

  private refuse(task: string, reason: string, message: string, extra: Record<string, unknown> = {}): never {
    this.options.warn({ task, reason, ...extra }, 'AI provider answer refused');
    throw new ServiceUnavailableError(`${message}; try again later (no credit was spent)`);
  }

  /** The SDK's errors, as the team reads them: each a 503, none naming the server or the key. */
  private failure(err: unknown, task: string): Error {
    if (!(err instanceof OpenAIError)) return err as Error;
    const status = err instanceof APIError ? err.status : undefined;
    this.options.warn({ task, status, error: err.message }, 'AI provider call failed');
    const suffix = '; try again later (no credit was spent)';
    if (err instanceof APIConnectionTimeoutError)
      return new ServiceUnavailableError(`The AI provider did not answer within ${this.options.timeoutMs} ms${suffix}`);
    if (err instanceof APIConnectionError)
      return new ServiceUnavailableError(`The AI provider could not be reached${suffix}`);
    if (status === 401 || status === 403)
      return new ServiceUnavailableError(
        `The AI provider refused this appliance’s credentials (HTTP ${status}); the operator must check the AI key${suffix}`,
      );
    if (status === 429)
      return new ServiceUnavailableError(`The AI provider is limiting this appliance’s requests (HTTP 429)${suffix}`);
    if (status !== undefined && status >= 500)
      return new ServiceUnavailableError(`The AI provider failed (HTTP ${status})${suffix}`);
    if (status !== undefined)
      return new ServiceUnavailableError(
        `The AI provider refused the request (HTTP ${status}); the operator must check the model and that the server supports structured output${suffix}`,
      );
    return new ServiceUnavailableError(`The AI provider could not be used${suffix}`);
  }
}
