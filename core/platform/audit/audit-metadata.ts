import type { AuditMetadata, AuditMetadataValue } from './audit.types.js';

/**
 * Names that could carry a credential or content. An entry records that a webhook's secret was
 * rotated, never the secret; that a broadcast was sent, never its body. Routes pass only the
 * facts they choose, and this is the second line: a key that looks like one of these is dropped
 * whatever its value.
 */
const FORBIDDEN_KEY =
  /(secret|token|password|passphrase|credential|authorization|cookie|verifier|html|body|content|^text$|^key$|api_key$|private_key|^code$)/i;
const MAX_KEYS = 20;
const MAX_STRING = 200;
const MAX_LIST = 50;

function clip(value: string): string {
  return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING - 1)}…` : value;
}

function cleanValue(value: AuditMetadataValue): AuditMetadataValue | undefined {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') return clip(value);
  if (Array.isArray(value))
    return value
      .slice(0, MAX_LIST)
      .filter((item) => typeof item === 'string')
      .map(clip);
  return undefined;
}

/** The metadata as stored: scalar facts only, credential-like keys dropped, sizes bounded. */
export function cleanAuditMetadata(metadata: AuditMetadata | undefined): Record<string, AuditMetadataValue> {
  const clean: Record<string, AuditMetadataValue> = {};
  if (!metadata) return clean;
  for (const [key, value] of Object.entries(metadata).slice(0, MAX_KEYS)) {
    if (FORBIDDEN_KEY.test(key)) continue;
    const kept = cleanValue(value);
    if (kept !== undefined) clean[key] = kept;
  }
  return clean;
}
