import type { IncomingMessage } from 'node:http';
import { ValidationError } from '../lib/errors.js';

/** Reads the raw request body up to `limit` bytes; the raw bytes feed idempotency fingerprints. */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): ValidationError {
  return new ValidationError(`Request body is larger than ${limit} bytes`, { errors: [{ path: '', message: `must be at most ${limit} bytes` }] });
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
