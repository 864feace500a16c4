/** Outcome of checking one uploaded file: a value, never an exception. */
export type BrandAssetProblem = { path: string; message: string };

export type ImageCheck<T> = { ok: true; value: T } | { ok: false; problems: BrandAssetProblem[] };

export const problem = (message: string): BrandAssetProblem => ({ path: 'content', message });

export function refuse<T>(...messages: string[]): ImageCheck<T> {
  return { ok: false, problems: [...new Set(messages)].map(problem) };
}

/** A stripped raster or a checked SVG: the bytes to store and what the response reports. */
export type CheckedImage = { bytes: Buffer; width: number | null; height: number | null };

export const MAX_RASTER_BYTES = 256 * 1024;
export const MAX_SVG_BYTES = 32 * 1024;
export const MAX_SIDE_PX = 4096;
