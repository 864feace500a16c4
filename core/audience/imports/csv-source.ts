import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';

/**
 * Reading uploaded CSV files with csv-parse, as a stream: quoted fields (with delimiters and
 * line breaks inside), CRLF or LF, a UTF-8 byte order mark, comma, semicolon or tab separated.
 * Bytes that are not UTF-8 decode to U+FFFD, which a row refuses (cellText), so such a cell
 * fails its row instead of becoming replacement characters in a contact's name.
 */

/** What the first bytes of a file say: the BOM to skip, the delimiter, the header's column names. */
export type CsvLayout = { skipBytes: number; delimiter: string; header: string[] };

/** One record after the header, numbered as a spreadsheet numbers rows (the header is row 1). */
export type CsvRecord = { row: number; fields: string[] };

/** The file cannot be read past a point (a quote never closed, a record too large): the import fails. */
export class CsvFileError extends Error {}

/** The header (and the delimiter sniffed from it) must fit in this many bytes. */
const HEAD_BYTES = 64 * 1024;
/** A record larger than this is a quote never closed, not a contact: reading stops there. */
const MAX_RECORD_BYTES = 256 * 1024;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const DELIMITERS = [',', ';', '\t', '|'];

const PARSE_OPTIONS = {
  encoding: 'utf8',
  // The BOM is skipped by byte offset (CsvLayout.skipBytes), also when a run resumes.
  bom: false,
  relax_quotes: true,
  relax_column_count: true,
  // Blank lines are kept (and ignored by the rows) so row numbers match what a spreadsheet shows.
  skip_empty_lines: false,
  max_record_size: MAX_RECORD_BYTES,
} as const;

/** The layout from the file's first 64 KB; null when the file has no header row. */
export async function readCsvLayout(path: string): Promise<CsvLayout | null> {
  const handle = await open(path, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const skipBytes = head.subarray(0, 3).equals(BOM) ? 3 : 0;
  head = head.subarray(skipBytes);
  if (head.length === HEAD_BYTES - skipBytes && !head.includes(0x0a))
    throw new CsvFileError('the header row is longer than 64 KB');
  const delimiter = sniffDelimiter(head);
  const [first] = parseSync(head, { ...PARSE_OPTIONS, delimiter, to: 1 }) as string[][];
  const header = (first ?? []).map((cell) => cell.trim());
  return header.some((name) => name !== '') ? { skipBytes, delimiter, header } : null;
}

/**
 * The records after the header in batches of `size`, leaving out the first `done` (already
 * imported by an earlier run). `source` starts after the BOM. Parsing stops with a CsvFileError
 * naming the row where the file stops making sense.
 */
export async function* csvBatches(
  source: Readable,
  delimiter: string,
  done: number,
  size: number,
): AsyncGenerator<CsvRecord[]> {
  // `from` counts the header as record 1: records before it are parsed but never handed out.
  const parser = parse({ ...PARSE_OPTIONS, delimiter, from: done + 2 });
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  let row = done + 1;
  let batch: CsvRecord[] = [];
  try {
    for await (const fields of parser as AsyncIterable<string[]>) {
      batch.push({ row: ++row, fields });
      if (batch.length < size) continue;
      yield batch;
      batch = [];
    }
  } catch (err) {
    if (!(err as { code?: string }).code?.startsWith('CSV_')) throw err;
    // The rows before the one that cannot be read are imported; the import fails there.
    if (batch.length > 0) yield batch;
    throw new CsvFileError(`the file cannot be read from row ${row + 1}: ${csvProblem(err as Error)}`);
  } finally {
    source.destroy();
    parser.destroy();
  }
  if (batch.length > 0) yield batch;
}

/**
 * A cell's text, or null when its bytes were not UTF-8 (the decoder wrote U+FFFD for them; a
 * file that holds U+FFFD itself holds text already damaged); a missing cell is ''.
 */
export function cellText(cell: string | undefined): string | null {
  if (cell === undefined) return '';
  return cell.includes('\uFFFD') ? null : cell;
}

/** The separator of the header line (outside quotes) that occurs most; a comma when none does. */
function sniffDelimiter(head: Buffer): string {
  const counts = new Map(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const byte of head) {
    const char = String.fromCharCode(byte);
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  let best = ',';
  for (const [delimiter, count] of counts) if (count > counts.get(best)!) best = delimiter;
  return best;
}

function csvProblem(err: Error & { code?: string }): string {
  if (err.code === 'CSV_QUOTE_NOT_CLOSED') return 'a quoted field is never closed';
  if (err.code === 'CSV_MAX_RECORD_SIZE') return 'a row is larger than 256 KB (a quoted field never closed?)';
  return err.message;
}
