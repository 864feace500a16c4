import { z } from 'zod';
import { InvalidParameterError } from '../../../lib/errors.js';
import { isUuid } from '../../../lib/ids.js';
import { pageQueryShape, withPageRules } from '../../shared/pagination/list-query.js';
import { topicChoiceSchema, type TopicChoice } from '../contacts/contact.schemas.js';
import { IMPORT_STATUSES, type OnConflict } from './contact-import.types.js';

const columnName = z.string().trim().min(1, 'must name a column of the file').max(255);
const propertyMapping = z.union([
  columnName,
  z.object({ column: columnName, type: z.enum(['string', 'number', 'boolean']).optional() }).strict(),
]);

/** The column map (spec): contact fields and property keys to the file's column names. */
export const columnMapSchema = z
  .object({
    email: columnName.optional(),
    first_name: columnName.optional(),
    last_name: columnName.optional(),
    unsubscribed: columnName.optional(),
    properties: z.record(z.string(), propertyMapping).optional(),
  })
  .strict();

const segmentsSchema = z
  .array(z.object({ id: z.string().refine(isUuid, 'must be a segment id') }).strict())
  .max(100, 'at most 100 segments');
const topicsSchema = z.array(topicChoiceSchema).max(100, 'at most 100 topics');
const onConflictSchema = z.enum(['upsert', 'skip'], 'must be upsert or skip');

export type ColumnMap = z.infer<typeof columnMapSchema>;

/** The text fields of the upload form, as sent. */
export type ImportFields = { column_map?: string; on_conflict?: string; segments?: string; topics?: string };

export type ImportOptions = {
  columnMap: ColumnMap | null;
  onConflict: OnConflict;
  segmentIds: string[];
  topics: TopicChoice[];
};

/**
 * Reads the form's fields: JSON text where the spec says so. Every refusal is 422
 * invalid_parameter naming the field (errors[].path starts with it).
 */
export function readImportOptions(fields: ImportFields): ImportOptions {
  const given = (text: string | undefined) => text !== undefined && text.trim() !== '';
  return {
    columnMap: given(fields.column_map)
      ? jsonField('column_map', fields.column_map!, columnMapSchema.nullable())
      : null,
    onConflict: given(fields.on_conflict)
      ? checked('on_conflict', fields.on_conflict!.trim(), onConflictSchema)
      : 'skip',
    segmentIds: given(fields.segments)
      ? (jsonField('segments', fields.segments!, segmentsSchema.nullable()) ?? []).map((s) => s.id.toLowerCase())
      : [],
    topics: given(fields.topics) ? (jsonField('topics', fields.topics!, topicsSchema.nullable()) ?? []) : [],
  };
}

function jsonField<T extends z.ZodType>(name: string, text: string, schema: T): z.output<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidParameterError(`${name} is not valid JSON`, {
      errors: [{ path: name, message: 'must be JSON text' }],
    });
  }
  return checked(name, value, schema);
}

function checked<T extends z.ZodType>(name: string, value: unknown, schema: T): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = result.error.issues.map((issue) => ({
    path: [name, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw new InvalidParameterError(`Invalid ${errors[0]!.path}: ${errors[0]!.message}`, { errors });
}

export const listImportsQuerySchema = withPageRules(
  z.object({ ...pageQueryShape, status: z.enum(IMPORT_STATUSES).optional() }).strict(),
);

const rowNumber = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a row number')
  .transform(Number);

/** Failures are listed by row, first row first; `after` and `before` are row numbers. */
export const listFailuresQuerySchema = withPageRules(
  z.object({ limit: pageQueryShape.limit, after: rowNumber.optional(), before: rowNumber.optional() }).strict(),
);

export type FailurePage = { limit?: number; after?: number; before?: number };
