import { foldCase } from '../../../lib/text/case-fold.js';

/**
 * The one place a contact property value becomes a `contact_property_values` row. The contact
 * writes (API) and the CSV import both build rows here, so a column the segment compiler relies
 * on is filled the same way by every writer.
 */
export type PropertyValueInput = {
  contactId: string;
  propertyId: string;
  teamId: string;
  type: 'string' | 'number';
  value: string | number;
};

export type PropertyValueRow = {
  contact_id: string;
  property_id: string;
  team_id: string;
  string_value: string | null;
  /** foldPropertyString(string_value): what segment filters compare, through an index. */
  folded_value: string | null;
  number_value: number | null;
};

/** The columns an upsert of an existing (contact, property) pair replaces. */
export const PROPERTY_VALUE_COLUMNS = ['string_value', 'folded_value', 'number_value'] as const;

export function propertyValueRow(input: PropertyValueInput): PropertyValueRow {
  const string = input.type === 'string' ? (input.value as string) : null;
  return {
    contact_id: input.contactId,
    property_id: input.propertyId,
    team_id: input.teamId,
    string_value: string,
    folded_value: string === null ? null : foldPropertyString(string),
    number_value: input.type === 'number' ? (input.value as number) : null,
  };
}

/**
 * The case-folded form of a string property value (lib/text/case-fold.ts): stored beside the
 * value, and applied to segment filter values, so a condition is an index range read.
 */
export const foldPropertyString = foldCase;
