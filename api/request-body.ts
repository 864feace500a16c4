import type { IncomingMessage } from 'node:http';
import { ValidationError } from '../lib/errors.js';

/**
 * Reads the raw request body up to `limit` bytes; the raw bytes feed idempotency fingerprints.
 * Plain 'data'/'end' listeners rather than `for await`: the async iterator costs every request
 * a few promises and an end-of-stream watcher. A body over the limit is refused with the
 * spec's error body: reading stops (the rest is never buffered) and the answer asks for the
 * connection to close, so the client gets the refusal instead of a reset mid-upload.
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    // Listeners passed inline: a named closure costs every request an Object.defineProperty
    // under tsx (esbuild's keepNames). Once settled, later events are ignored.
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      settled = true;
      chunks.length = 0;
      req.pause();
      reject(tooLarge(limit));
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('error', (err: Error) => {
      if (settled) return;
      settled = true;
      reject(err);
    });
    req.on('close', () => {
      if (settled) return;
      settled = true;
      reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    });
  });
}

function tooLarge(limit: number): ValidationError {
  // Connection: close makes Node end the connection once the answer is out (the rest of the
  // body is not read); without it the client would keep sending into a kept-alive connection.
  return new ValidationError(`Request body is larger than ${limit} bytes`, { errors: [{ path: '', message: `must be at most ${limit} bytes` }], headers: { connection: 'close' } });
}

/** JSON bodies only (other body types arrive with the routes that take them). Empty is {}. */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return {};
  if (contentType && !/^application\/([a-z.+-]*\+)?json\b/i.test(contentType)) {
    throw new ValidationError('Content-Type must be application/json', { errors: [{ path: '', message: 'body must be JSON' }] });
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ValidationError('Request body is not valid JSON', { errors: [{ path: '', message: 'is not valid JSON' }] });
  }
}

/** Query string to an object; a repeated name becomes an array (single-valued schemas refuse it). */
export function queryObject(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of search) {
    const current = query[name];
    query[name] = current === undefined ? value : Array.isArray(current) ? [...current, value] : [current, value];
  }
  return query;
}
