import { isEmailAddress, normalizeEmail } from '../../shared/addresses/email-address.js';
import { MAX_PROPERTY_STRING, type PropertyType } from '../properties/contact-property.types.js';
import type { Column, ImportFailure, ImportPlan } from './contact-import.types.js';
import { cellText, type CsvRecord } from './csv-source.js';

/** A property value a row sets, typed as the property is declared. */
export type ImportedValue = { propertyId: string; type: PropertyType; value: string | number };

/** A row that names a contact. An empty cell is "not given" (null): it never clears a value. */
export type ImportedRow = {
  row: number;
  email: string;
  normalized: string;
  firstName: string | null;
  lastName: string | null;
  unsubscribed: boolean | null;
  values: ImportedValue[];
};

export type RowOutcome =
  | { kind: 'contact'; contact: ImportedRow }
  | { kind: 'failed'; failure: ImportFailure }
  /** A line with no content: not a row of the counts, but it keeps its row number. */
  | { kind: 'blank' };

const MAX_NAME = 200;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TRUE = new Set(['true', 'yes', 'y', '1', 't']);
const FALSE = new Set(['false', 'no', 'n', '0', 'f']);

/** Thrown for the first problem of a row; becomes its failure. */
class RowProblem extends Error {}

/**
 * The row rules that need no database: a usable address, names within 200 characters, a
 * recognisable unsubscribed flag, values that fit their property's type, UTF-8 cells.
 * (Whether the address exists, and the contact limit, are decided per batch.) Module-level
 * helpers rather than closures: this runs a million times per large import.
 */
export function readRow(record: CsvRecord, plan: ImportPlan): RowOutcome {
  const { fields } = record;
  if (fields.every(isBlank)) return { kind: 'blank' };
  const { columns } = plan;
  const rawEmail = cellText(fields[columns.email.index]);
  const email = rawEmail?.trim() ?? '';
  if (rawEmail === null) return failed(record, email, `the "${columns.email.name}" cell is not valid UTF-8`);
  if (email === '') return failed(record, email, 'no email address');
  if (!isEmailAddress(email)) return failed(record, email, 'not a valid email address');
  try {
    const unsubscribed = text(fields, columns.unsubscribed);
    const contact: ImportedRow = {
      row: record.row,
      email,
      normalized: normalizeEmail(email),
      firstName: personName(fields, columns.first_name, 'first_name'),
      lastName: personName(fields, columns.last_name, 'last_name'),
      unsubscribed: unsubscribed === null ? null : readBoolean('unsubscribed', unsubscribed),
      values: [],
    };
    for (const property of plan.properties) {
      const value = text(fields, property.column);
      if (value !== null)
        contact.values.push({ propertyId: property.propertyId, type: property.type, value: typed(property, value) });
    }
    return { kind: 'contact', contact };
  } catch (err) {
    if (err instanceof RowProblem) return failed(record, email, err.message);
    throw err;
  }
}

const isBlank = (cell: string) => cell.length === 0 || cell.trim() === '';

function failed(record: CsvRecord, email: string, reason: string): RowOutcome {
  return {
    kind: 'failed',
    failure: { row: record.row, email: email === '' ? null : email.slice(0, 320), reason: reason.slice(0, 300) },
  };
}

/** The trimmed cell, null when empty or absent. */
function text(fields: string[], column: Column | undefined): string | null {
  if (!column) return null;
  const value = cellText(fields[column.index]);
  if (value === null) throw new RowProblem(`the "${column.name}" cell is not valid UTF-8`);
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function personName(fields: string[], column: Column | undefined, field: string): string | null {
  const value = text(fields, column);
  if (value !== null && value.length > MAX_NAME) throw new RowProblem(`${field} is longer than ${MAX_NAME} characters`);
  return value;
}

function typed(property: ImportPlan['properties'][number], value: string): string | number {
  const { key, type, read } = property;
  if (read === 'boolean') {
    const flag = readBoolean(`"${key}"`, value);
    return type === 'number' ? (flag ? 1 : 0) : String(flag);
  }
  if (type === 'number') {
    const number = Number(value);
    if (!NUMBER.test(value) || !Number.isFinite(number))
      throw new RowProblem(`"${key}" is a number property: ${quoted(value)} is not a number`);
    return number;
  }
  if (value.length > MAX_PROPERTY_STRING)
    throw new RowProblem(`"${key}" is longer than ${MAX_PROPERTY_STRING} characters`);
  return value;
}

function readBoolean(label: string, value: string): boolean {
  const lower = value.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw new RowProblem(`${label} must be true or false, not ${quoted(value)}`);
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}
