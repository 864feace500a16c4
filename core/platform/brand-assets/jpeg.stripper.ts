import { MAX_SIDE_PX, refuse, type CheckedImage, type ImageCheck } from './brand-asset.types.js';

const INVALID = 'file is not a valid JPEG image';
/** APP segments kept: JFIF (APP0), ICC profile (APP2), Adobe colour transform (APP14). */
const KEPT_APP = new Set([0xe0, 0xe2, 0xee]);
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
const isStandalone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);

/** Offset just past a scan's entropy-coded data: the next marker that is not a stuffed 0 or RST. */
function endOfScan(bytes: Buffer, from: number): number {
  for (let i = from; i + 1 < bytes.length; i++) {
    if (bytes[i] !== 0xff) continue;
    const next = bytes[i + 1]!;
    if (next !== 0x00 && next !== 0xff && !isStandalone(next)) return i;
  }
  return bytes.length;
}

/**
 * Copies a JPEG marker by marker, dropping metadata segments: APP1 (Exif, XMP), APP13
 * (Photoshop/IPTC), the other APPn and COM. Scans are copied as they are; anything after EOI
 * is dropped. Progressive files (several scans with tables between) are walked the same way.
 */
export function stripJpeg(bytes: Buffer): ImageCheck<CheckedImage> {
  const out: Buffer[] = [bytes.subarray(0, 2)];
  let offset = 2;
  let size: { width: number; height: number } | undefined;
  let scanned = false;
  while (offset < bytes.length) {
    if (bytes[offset] !== 0xff) return refuse(INVALID);
    while (bytes[offset + 1] === 0xff) offset++; // fill bytes
    const marker = bytes[offset + 1];
    if (marker === undefined) return refuse(INVALID);
    if (marker === 0xd9) {
      out.push(Buffer.from([0xff, 0xd9]));
      break;
    }
    if (isStandalone(marker)) {
      out.push(bytes.subarray(offset, offset + 2));
      offset += 2;
      continue;
    }
    if (marker === 0xd8 || offset + 4 > bytes.length) return refuse(INVALID);
    const length = bytes.readUInt16BE(offset + 2);
    const end = offset + 2 + length;
    if (length < 2 || end > bytes.length) return refuse(INVALID);
    if (SOF.has(marker)) {
      if (length < 8) return refuse(INVALID);
      size = { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    }
    const dropped = marker === 0xfe || (marker >= 0xe0 && marker <= 0xef && !KEPT_APP.has(marker));
    if (!dropped) out.push(bytes.subarray(offset, end));
    offset = end;
    if (marker === 0xda) {
      if (!size) return refuse(INVALID);
      const scanEnd = endOfScan(bytes, offset);
      out.push(bytes.subarray(offset, scanEnd));
      offset = scanEnd;
      scanned = true;
    }
  }
  if (!size || !scanned || size.width < 1 || size.height < 1) return refuse(INVALID);
  if (size.width > MAX_SIDE_PX || size.height > MAX_SIDE_PX)
    return refuse(`image is larger than ${MAX_SIDE_PX} pixels per side`);
  // A file cut off after its last scan still displays; close it properly.
  const last = out[out.length - 1]!;
  if (!(last.length === 2 && last[0] === 0xff && last[1] === 0xd9)) out.push(Buffer.from([0xff, 0xd9]));
  return { ok: true, value: { bytes: Buffer.concat(out), width: size.width, height: size.height } };
}
