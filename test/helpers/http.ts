import type { Test } from 'tap';
import type { ErrorBody } from '../../lib/errors.js';
import { UA } from './test-app.js';

export type HttpResponse<T = any> = { status: number; headers: Headers; body: T; text: string };

export type RequestOptions = {
  method?: string;
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** null sends no User-Agent at all. */
  userAgent?: string | null;
};

/** A real HTTP request to the appliance under test. */
export async function request<T = any>(
  baseUrl: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.userAgent !== null) headers['user-agent'] = options.userAgent ?? UA;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  // undici's fetch always adds a User-Agent; node:http lets a test send none.
  const response = await rawRequest(baseUrl + path, options.method ?? 'GET', headers, body);
  let parsed: unknown = response.text;
  try {
    parsed = JSON.parse(response.text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text: response.text };
}

async function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Headers; text: string }> {
  const { request: httpRequest } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (value !== undefined) h.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    // Framed like any client: node:http sends a DELETE's body unframed unless told its length.
    if (body !== undefined) req.setHeader('content-length', Buffer.byteLength(body));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Asserts the spec's error body: statusCode, name, message, and nothing outside the schema. */
export function errorShape(t: Test, response: HttpResponse, status: number, name: string): ErrorBody {
  t.equal(response.status, status, `status ${status}`);
  const body = response.body as ErrorBody;
  t.equal(body.statusCode, status, 'body.statusCode');
  t.equal(body.name, name, 'body.name');
  t.type(body.message, 'string', 'body.message');
  t.ok(body.message.length > 0, 'message not empty');
  const allowed = new Set(['statusCode', 'name', 'message', 'errors', 'code', 'claimable', 'details']);
  t.same(
    Object.keys(body).filter((key) => !allowed.has(key)),
    [],
    'no fields outside the error body',
  );
  t.match(response.headers.get('content-type') ?? '', /application\/json/, 'JSON error');
  return body;
}
