import type { Knex } from 'knex';
import type { FileBlobStore } from '../../../lib/blob-store.js';
import type { Clock } from '../../../lib/clock.js';
import { NotFoundError, UnprocessableValidationError, ValidationError } from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';
import { processBrandAsset } from './brand-asset.processor.js';

export const MAX_ASSETS_PER_TEAM = 100;
const NAMESPACE = 'brand-assets';

export type BrandAssetUpload = {
  object: 'brand_kit_upload';
  url: string;
  content_type: string;
  bytes: number;
  sha256: string;
  width: number | null;
  height: number | null;
};

type Row = {
  sha256: string;
  content_type: string;
  extension: string;
  bytes: number;
  width: number | null;
  height: number | null;
};

/**
 * Logo uploads for the brand kit. Files are stored by content hash, so the same file always
 * gives the same URL; the upload does not change the brand kit (the caller PATCHes the URL in).
 */
export class BrandAssetService {
  constructor(private readonly deps: { knex: Knex; clock: Clock; blobs: FileBlobStore; publicUrl: () => string }) {}

  async upload(teamId: string, base64: string): Promise<BrandAssetUpload> {
    const bytes = decodeBase64(base64);
    const result = processBrandAsset(bytes);
    if (!result.ok)
      throw new ValidationError(result.problems.map((p: { message: string }) => p.message).join('; '), {
        errors: result.problems,
      });
    const asset = result.asset;
    const existing = (await this.deps.knex('brand_assets').where({ team_id: teamId, sha256: asset.sha256 }).first()) as
      Row | undefined;
    if (existing) return this.toUpload(existing);
    const [{ count }] = (await this.deps.knex('brand_assets').where({ team_id: teamId }).count({ count: '*' })) as [
      { count: number | string },
    ];
    if (Number(count) >= MAX_ASSETS_PER_TEAM) {
      throw new UnprocessableValidationError(`A team may upload at most ${MAX_ASSETS_PER_TEAM} different brand files`);
    }
    // Bytes first (fsynced), row second: a row never points at a missing file.
    await this.deps.blobs.put(NAMESPACE, `${asset.sha256}.${asset.extension}`, asset.bytes);
    const row: Row = {
      sha256: asset.sha256,
      content_type: asset.contentType,
      extension: asset.extension,
      bytes: asset.bytes.length,
      width: asset.width,
      height: asset.height,
    };
    await this.deps
      .knex('brand_assets')
      .insert({ id: newId(), team_id: teamId, created_at: this.deps.clock.now(), ...row })
      .onConflict(['team_id', 'sha256'])
      .ignore();
    return this.toUpload(row);
  }

  /** Serves a stored file by its public name `<sha256>.<ext>`. */
  async read(fileName: string): Promise<{ contentType: string; bytes: Buffer }> {
    const match = /^([0-9a-f]{64})\.(png|jpg|svg)$/.exec(fileName);
    if (!match) throw new NotFoundError('File not found');
    const row = (await this.deps.knex('brand_assets').where({ sha256: match[1], extension: match[2] }).first()) as
      Row | undefined;
    const bytes = row ? await this.deps.blobs.get(NAMESPACE, fileName) : null;
    if (!row || !bytes) throw new NotFoundError('File not found');
    return { contentType: row.content_type, bytes };
  }

  private toUpload(row: Row): BrandAssetUpload {
    return {
      object: 'brand_kit_upload',
      url: `${this.deps.publicUrl().replace(/\/+$/, '')}/brand-assets/${row.sha256}.${row.extension}`,
      content_type: row.content_type,
      bytes: Number(row.bytes),
      sha256: row.sha256,
      width: row.width === null ? null : Number(row.width),
      height: row.height === null ? null : Number(row.height),
    };
  }
}

function decodeBase64(value: string): Buffer {
  const compact = value.replace(/^data:[^;,]+;base64,/, '').replace(/\s+/g, '');
  if (compact.length === 0 || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) {
    throw new ValidationError('content must be a base64-encoded image', {
      errors: [{ path: 'content', message: 'must be base64' }],
    });
  }
  return Buffer.from(compact, 'base64');
}
