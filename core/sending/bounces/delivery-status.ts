import { fieldValue, messageIdOf, normalizeAddress, parseFields, type HeaderField } from './report-mime.js';
import type { RecipientAction } from './report.types.js';

/**
 * The machine-readable part of a delivery status notification: message/delivery-status
 * (RFC 3464 2.1) and its UTF-8 form message/global-delivery-status (RFC 6533). The body is
 * header-like blocks separated by empty lines: per-message fields first, then one block per
 * recipient.
 */

/** What a report says about one recipient, before it is classified. */
export type StatusEntry = {
  recipient: string;
  action: RecipientAction;
  status: string | null;
  diagnostic: string | null;
};

export type DeliveryStatus = {
  reportingMta: string | null;
  envelopeId: string | null;
  /** Gmail names the original in the per-message fields (X-Original-Message-ID). */
  originalMessageId: string | null;
  entries: StatusEntry[];
};

const ACTIONS: ReadonlySet<string> = new Set<RecipientAction>([
  'failed',
  'delayed',
  'delivered',
  'relayed',
  'expanded',
]);
const ACTION_BY_CLASS: Record<string, RecipientAction> = { '2': 'delivered', '4': 'delayed', '5': 'failed' };
const STATUS_FIELD = /^([245]\.\d{1,3}\.\d{1,3})\b/;

/** 'dns; mx.example.net' -> 'mx.example.net': a value without its RFC 3464 type. */
export function untyped(value: string): string {
  const type = /^[\w.+-]+\s*;\s*/.exec(value);
  return type ? value.slice(type[0].length) : value;
}

/** An address field ('rfc822; <x@y>', or RFC 6533 'utf-8; j\x{F6}rg@y') as a plain address. */
function addressField(value: string | undefined): string | null {
  if (!value) return null;
  const address = untyped(value).replace(/\\x\{([0-9A-Fa-f]{1,6})\}/g, (escape, hex: string) => {
    const codePoint = parseInt(hex, 16);
    return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : escape;
  });
  return normalizeAddress(address);
}

/** The action as reported; a missing or unknown one read from the status class, else failed. */
function actionOf(action: string | undefined, status: string | null): RecipientAction {
  const word = action?.split(/[\s(]/)[0]!.toLowerCase() ?? '';
  if (ACTIONS.has(word)) return word as RecipientAction;
  return (status && ACTION_BY_CLASS[status[0]!]) || 'failed';
}

/**
 * The recipient the report is about. Original-Recipient (the ORCPT we gave) is preferred: it
 * is the address we sent to, while Final-Recipient can be where an alias or forward led.
 */
function entryOf(fields: HeaderField[]): StatusEntry | null {
  const recipient =
    addressField(fieldValue(fields, 'original-recipient')) ?? addressField(fieldValue(fields, 'final-recipient'));
  if (!recipient) return null;
  const status = STATUS_FIELD.exec(fieldValue(fields, 'status') ?? '')?.[1] ?? null;
  const diagnostic = fieldValue(fields, 'diagnostic-code') || null;
  return { recipient, action: actionOf(fieldValue(fields, 'action'), status), status, diagnostic };
}

const isRecipientField = (field: HeaderField) =>
  field.name === 'final-recipient' || field.name === 'original-recipient';

/** Recipient blocks; a block holding a second Final-Recipient (a missing empty line) is split there. */
function recipientGroups(blocks: HeaderField[][]): HeaderField[][] {
  const groups: HeaderField[][] = [];
  for (const block of blocks) {
    let group: HeaderField[] = [];
    for (const field of block) {
      if (field.name === 'final-recipient' && group.some((seen) => seen.name === 'final-recipient')) {
        groups.push(group);
        group = [];
      }
      group.push(field);
    }
    groups.push(group);
  }
  return groups.filter((group) => group.some(isRecipientField));
}

export function parseDeliveryStatus(text: string): DeliveryStatus {
  const blocks = text
    .split(/\n[ \t]*\n/)
    .map(parseFields)
    .filter((fields) => fields.length > 0);
  const all = blocks.flat();
  return {
    reportingMta: untypedOrNull(fieldValue(all, 'reporting-mta')),
    envelopeId: fieldValue(all, 'original-envelope-id') || null,
    originalMessageId: messageIdOf(fieldValue(all, 'x-original-message-id')),
    entries: recipientGroups(blocks).flatMap((group) => entryOf(group) ?? []),
  };
}

function untypedOrNull(value: string | undefined): string | null {
  return value ? untyped(value).trim() || null : null;
}
