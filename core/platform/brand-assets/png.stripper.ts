import { crc32 } from 'node:zlib';
import { MAX_SIDE_PX, refuse, type CheckedImage, type ImageCheck } from './brand-asset.types.js';

/**
 * Chunks kept: the critical ones and the ancillary ones that change how the image renders.
 * Everything else (tEXt, zTXt, iTXt incl. XMP, eXIf, tIME, private chunks) is metadata and is
 * dropped, as is anything after IEND.
 */
const KEPT = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'gAMA',
  'cHRM',
  'sRGB',
  'iCCP',
  'sBIT',
  'pHYs',
  'bKGD',
  'hIST',
  'cICP',
  'mDCv',
  'cLLi',
  'acTL',
  'fcTL',
  'fdAT',
]);
const CRITICAL = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND']);
const INVALID = 'file is not a valid PNG image';

type Chunk = { type: string; start: number; end: number };

/** Walks the chunk list, checking lengths and CRCs; undefined when the structure is broken. */
function readChunks(bytes: Buffer): Chunk[] | undefined {
  const chunks: Chunk[] = [];
  let offset = 8;
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const end = offset + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) return undefined;
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) return undefined;
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== bytes.readUInt32BE(offset + 8 + length))
      return undefined;
    chunks.push({ type, start: offset, end });
    offset = end;
    if (type === 'IEND') return chunks;
  }
  return undefined;
}

export function stripPng(bytes: Buffer): ImageCheck<CheckedImage> {
  const chunks = readChunks(bytes);
  if (
    !chunks ||
    chunks[0]?.type !== 'IHDR' ||
    chunks[0].end - chunks[0].start !== 25 ||
    !chunks.some((c) => c.type === 'IDAT')
  )
    return refuse(INVALID);
  // An unknown critical chunk (upper-case first letter) means a decoder must not show the image.
  if (chunks.some((c) => c.type[0] === c.type[0]!.toUpperCase() && !CRITICAL.has(c.type))) return refuse(INVALID);
  const width = bytes.readUInt32BE(chunks[0].start + 8);
  const height = bytes.readUInt32BE(chunks[0].start + 12);
  if (width < 1 || height < 1) return refuse(INVALID);
  if (width > MAX_SIDE_PX || height > MAX_SIDE_PX) return refuse(`image is larger than ${MAX_SIDE_PX} pixels per side`);
  const kept = chunks.filter((c) => KEPT.has(c.type)).map((c) => bytes.subarray(c.start, c.end));
  return { ok: true, value: { bytes: Buffer.concat([bytes.subarray(0, 8), ...kept]), width, height } };
}
