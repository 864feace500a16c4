import type { Context } from 'koa';

/** A submitted page form: every field's values (a repeated name gives several). */
export type PageForm = { fields: Record<string, string[]>; raw: string };

export class FormTooLargeError extends Error {}

/**
 * Reads a page's POST body: small, URL-encoded forms (the preference form) or the RFC 8058
 * one-click body, which some senders post as multipart; that body is only looked at as text.
 */
export async function readPageForm(ctx: Context, maxBytes: number): Promise<PageForm> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new FormTooLargeError(`form bodies are at most ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  const raw = Buffer.concat(chunks).toString('utf8');
  const fields: Record<string, string[]> = {};
  if (ctx.is('application/x-www-form-urlencoded'))
    for (const [name, value] of new URLSearchParams(raw)) (fields[name] ??= []).push(value);
  return { fields, raw };
}
