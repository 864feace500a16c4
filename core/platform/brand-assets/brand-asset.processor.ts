import { createHash } from 'node:crypto';
import {
  MAX_RASTER_BYTES,
  refuse,
  type BrandAssetProblem,
  type CheckedImage,
  type ImageCheck,
} from './brand-asset.types.js';
import { sniffImageType } from './image-type.sniffer.js';
import { stripJpeg } from './jpeg.stripper.js';
import { stripPng } from './png.stripper.js';
import { checkSvg } from './svg.checker.js';

export type ProcessedBrandAsset = {
  contentType: 'image/png' | 'image/jpeg' | 'image/svg+xml';
  extension: 'png' | 'jpg' | 'svg';
  bytes: Buffer;
  width: number | null;
  height: number | null;
  /** Of the stored bytes: the same file always gets the same name and URL. */
  sha256: string;
};

export type BrandAssetResult = { ok: true; asset: ProcessedBrandAsset } | { ok: false; problems: BrandAssetProblem[] };

const FORMATS = {
  png: { contentType: 'image/png', extension: 'png', check: stripPng },
  jpeg: { contentType: 'image/jpeg', extension: 'jpg', check: stripJpeg },
  svg: { contentType: 'image/svg+xml', extension: 'svg', check: checkSvg },
} as const;

/** Validates and sanitises one logo upload: PNG/JPEG stripped of metadata, SVG checked. */
export function processBrandAsset(input: Buffer): BrandAssetResult {
  const type = sniffImageType(input);
  if (!type) return refuse<never>('unsupported image type: only PNG, JPEG and SVG are accepted') as BrandAssetResult;
  if (type !== 'svg' && input.length > MAX_RASTER_BYTES)
    return refuse<never>(`file is larger than ${MAX_RASTER_BYTES / 1024} KB`) as BrandAssetResult;
  const format = FORMATS[type];
  let checked: ImageCheck<CheckedImage>;
  try {
    checked = format.check(input);
  } catch {
    // The checkers bound every read; this is a last guard so bad bytes never become a 500.
    checked = refuse(`file is not a valid ${type.toUpperCase()} image`);
  }
  if (!checked.ok) return checked;
  const { bytes, width, height } = checked.value;
  return {
    ok: true,
    asset: {
      contentType: format.contentType,
      extension: format.extension,
      bytes,
      width,
      height,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    },
  };
}
