import { z } from 'zod';

/** The query of a signed, expiring download link (the signature is the credential). */
export const signedLinkQuery = z.object({ expires: z.string().max(20), signature: z.string().max(100) }).strict();

/**
 * A file served through a signed link: downloaded, never rendered by the browser (nosniff, a
 * quoted file name without the characters that could end the header), and never cached.
 */
export function servedFile(filename: string | null, contentType: string, bytes: Buffer) {
  const name = (filename ?? 'attachment').replace(/["\\\r\n]/g, '_');
  return {
    status: 200,
    raw: { contentType, bytes },
    headers: {
      'content-disposition': `attachment; filename="${name}"`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    },
  };
}
