import type { EmailBodies } from './email.types.js';

/** A spool record: [u32 length of the bodies JSON][bodies JSON][MIME]. */
export function encodeRecord(bodies: EmailBodies, mime: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(bodies));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(json.length);
  return Buffer.concat([head, json, mime]);
}

export function decodeRecord(record: Buffer): { bodies: EmailBodies; mime: Buffer } {
  const length = record.readUInt32BE(0);
  return {
    bodies: JSON.parse(record.subarray(4, 4 + length).toString('utf8')) as EmailBodies,
    mime: record.subarray(4 + length),
  };
}

/** The MIME part of a record alone: the MTA sends every message and needs no parsed bodies. */
export function mimeOfRecord(record: Buffer): Buffer {
  return record.subarray(4 + record.readUInt32BE(0));
}
