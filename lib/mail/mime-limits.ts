/**
 * The structural limits the MIME parser (mailparser over mailsplit) enforces, named once so the
 * submission port and the inbound MX refuse the same messages with the same reason.
 */

/** MIME nodes a message may have, the message itself counted (mailsplit's maxChildNodes). */
export const MAX_MIME_PARTS = 1000;

/** The parser options that set them (mailparser's defaults today; explicit so the reason stays true). */
export const MIME_LIMIT_OPTIONS = { maxChildNodes: MAX_MIME_PARTS } as const;

/**
 * Why the parser gave up on a message because of the message itself (too many parts, or a part
 * whose header block exceeds the parser's 1 MiB), or undefined for any other error. Such a message
 * fails the same way on every retry: it is refused permanently, never with a 4xx.
 */
export function mimeLimitExceeded(err: unknown): string | undefined {
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== 'EMAXLEN') return undefined;
  if (/child nodes/i.test(err.message)) return `too many MIME parts (limit ${MAX_MIME_PARTS})`;
  return 'a MIME part header is too large (limit 1 MiB)';
}
