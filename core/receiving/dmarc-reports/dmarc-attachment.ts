import { gunzipSync, inflateRawSync } from 'node:zlib';
import { DmarcReportError } from './dmarc-report.types.js';

/** The part of a report message that carries the feedback document. */
export type ReportPart = { filename: string | null; contentType: string; content: Buffer };

const GZIP_MAGIC = 0x8b1f;
const ZIP_LOCAL_HEADER = 0x04034b50;
const ZIP_CENTRAL_HEADER = 0x02014b50;

/** The part that looks like the report: an .xml/.gz/.zip attachment or an XML/gzip/zip type. */
export function reportPartOf(parts: ReportPart[]): ReportPart | undefined {
  const byType = /(^|\/)(x-)?(gzip|zip|xml|x-zip-compressed)$|^application\/octet-stream$/i;
  const byName = /\.(xml|gz|zip)$/i;
  return (
    parts.find((part) => byName.test(part.filename ?? '')) ??
    parts.find((part) => byType.test(part.contentType.split(';')[0]!.trim()))
  );
}

/**
 * The XML text of a report attachment, gzip, zip (one entry, stored or deflated) or plain,
 * told apart by its first bytes (senders label them inconsistently). Decompression stops at
 * `maxXmlBytes`, so a bomb costs at most that much memory.
 */
export function reportXmlOf(content: Buffer, maxXmlBytes: number): string {
  if (content.length >= 2 && content.readUInt16LE(0) === GZIP_MAGIC)
    return inflated(() => gunzipSync(content, { maxOutputLength: maxXmlBytes }), maxXmlBytes);
  if (content.length >= 4 && content.readUInt32LE(0) === ZIP_LOCAL_HEADER) return zipEntry(content, maxXmlBytes);
  if (content.length > maxXmlBytes) throw new DmarcReportError(`the report is larger than ${maxXmlBytes} bytes`);
  return content.toString('utf8');
}

function inflated(run: () => Buffer, maxXmlBytes: number): string {
  try {
    return run().toString('utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new DmarcReportError(`the report inflates past ${maxXmlBytes} bytes`);
    throw new DmarcReportError(`the report cannot be decompressed: ${(err as Error).message}`);
  }
}

/**
 * The first entry of a zip archive. Sizes are read from the central directory (a local header
 * written while streaming has them zero); only stored (0) and deflate (8) are known.
 */
function zipEntry(zip: Buffer, maxXmlBytes: number): string {
  const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  if (central < 0 || zip.length < central + 46 || zip.readUInt32LE(central) !== ZIP_CENTRAL_HEADER)
    throw new DmarcReportError('the zip archive has no central directory');
  const method = zip.readUInt16LE(central + 10);
  const compressedSize = zip.readUInt32LE(central + 20);
  const size = zip.readUInt32LE(central + 24);
  const localOffset = zip.readUInt32LE(central + 42);
  if (size > maxXmlBytes) throw new DmarcReportError(`the report inflates past ${maxXmlBytes} bytes`);
  if (zip.length < localOffset + 30 || zip.readUInt32LE(localOffset) !== ZIP_LOCAL_HEADER)
    throw new DmarcReportError('the zip entry has no local header');
  const start = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
  const data = zip.subarray(start, start + compressedSize);
  if (method === 0) return data.toString('utf8');
  if (method !== 8) throw new DmarcReportError(`the zip entry uses compression method ${method}`);
  return inflated(() => inflateRawSync(data, { maxOutputLength: maxXmlBytes }), maxXmlBytes);
}
