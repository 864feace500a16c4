import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local stand-in for an OpenAI-compatible server: a real HTTP server on 127.0.0.1 (port 0)
 * answering `POST /v1/chat/completions` in OpenAI's published response shape, so the official
 * `openai` SDK talks to it unchanged. It records every request (headers and parsed body) and
 * answers what the test scripted, in order; unscripted requests get a valid answer built from
 * the JSON schema the request asked for (response_format.json_schema.schema).
 */
export type DoubleReply =
  /** A valid completion whose message content is this value, as JSON. */
  | { kind: 'json'; value: unknown }
  /** A completion whose content is this text as is (not JSON, or JSON of the wrong shape). */
  | { kind: 'content'; content: string }
  /** A completion the model refused (message.refusal set, content null). */
  | { kind: 'refusal'; refusal: string }
  /** A completion cut off by the token limit (finish_reason: length). */
  | { kind: 'length' }
  /** Nothing for `ms`, then `then` (default: the schema's answer): longer than the client's timeout. */
  | { kind: 'slow'; ms: number; then?: DoubleReply }
  /** An HTTP error in OpenAI's error shape: 401 invalid_api_key, 429, 500 server_error... */
  | { kind: 'status'; status: number };

export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: any; raw: string };

export type OpenAiDouble = {
  /** The base URL to configure (`ai.baseUrl`): `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Replies for the next requests, in order. */
  script(...replies: DoubleReply[]): void;
  /** Forgets the recorded requests and the replies not used yet. */
  reset(): void;
  close(): Promise<void>;
};

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema };

/** A value of the schema's shape: each string names its property, each list has two items. */
export function sampleOf(schema: JsonSchema | undefined, name = 'value'): unknown {
  switch (schema?.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, property]) => [key, sampleOf(property, key)]),
      );
    case 'array':
      return [sampleOf(schema.items, `${name} 1`), sampleOf(schema.items, `${name} 2`)];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return name === 'html' ? '<p>Sample html from the double</p>' : `Sample ${name} from the double`;
  }
}

const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'Invalid request', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided: sk-***.', type: 'invalid_request_error', code: 'invalid_api_key' },
  404: { message: 'The model does not exist', type: 'invalid_request_error', code: 'model_not_found' },
  429: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request.', type: 'server_error', code: null },
  503: { message: 'The engine is currently overloaded.', type: 'server_error', code: null },
};

export async function startOpenAiDouble(): Promise<OpenAiDouble> {
  const requests: RecordedRequest[] = [];
  let queue: DoubleReply[] = [];
  let counter = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const sendJson = (res: ServerResponse, status: number, body: unknown) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_double_${counter}` });
    res.end(JSON.stringify(body));
  };

  const completion = (model: string, message: Record<string, unknown>, finishReason = 'stop') => ({
    id: `chatcmpl-double${++counter}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', annotations: [], ...message },
        finish_reason: finishReason,
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    system_fingerprint: null,
  });

  const answer = (res: ServerResponse, body: any, reply: DoubleReply | undefined): void => {
    const model = String(body?.model ?? 'unknown');
    const schema = body?.response_format?.json_schema?.schema as JsonSchema | undefined;
    const value = reply ?? { kind: 'json', value: sampleOf(schema) };
    switch (value.kind) {
      case 'json':
        return sendJson(res, 200, completion(model, { content: JSON.stringify(value.value), refusal: null }));
      case 'content':
        return sendJson(res, 200, completion(model, { content: value.content, refusal: null }));
      case 'refusal':
        return sendJson(res, 200, completion(model, { content: null, refusal: value.refusal }));
      case 'length':
        return sendJson(res, 200, completion(model, { content: '{"summary": "cut', refusal: null }, 'length'));
      case 'status': {
        const error = ERRORS[value.status] ?? { message: `HTTP ${value.status}`, type: 'server_error', code: null };
        return sendJson(res, value.status, { error: { ...error, param: null } });
      }
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          answer(res, body, value.then);
        }, value.ms);
        timers.add(timer);
        res.on('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      const path = (req.url ?? '').split('?')[0]!;
      requests.push({ method: req.method ?? '', path, headers: req.headers, body, raw });
      if (req.method !== 'POST' || path !== '/v1/chat/completions')
        return sendJson(res, 404, {
          error: {
            message: `Unknown route ${req.method} ${path}`,
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        });
      answer(res, body, queue.shift());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => void queue.push(...replies),
    reset() {
      requests.length = 0;
      queue = [];
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
