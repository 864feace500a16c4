import { z } from 'zod';
import {
  listFailuresQuerySchema,
  listImportsQuerySchema,
} from '../../../core/audience/imports/contact-import.schemas.js';
import { publicContactImport, publicImportFailure } from '../../../core/audience/imports/contact-import.shape.js';
import { IMPORT_STATUSES, MAX_IMPORT_FILE_BYTES } from '../../../core/audience/imports/contact-import.types.js';
import { listEnvelope } from '../../../core/shared/pagination/list-query.js';
import { defineRoute } from '../../route.js';
import { listSchema } from '../../schemas.js';
import { idParam, refSchema } from './audience-schemas.js';
import { answeredId, auditEvent } from '../../audit-events.js';

const tag = 'contacts';
const params = z.object({ import_id: idParam('Contact import') });
const isolation = { param: 'import_id', resource: 'contact_import' };

const jsonText = (description: string) => z.string().max(1_000_000).optional().describe(description);

/** The upload form: the file and the spec's text fields (JSON text where it says so; read by the service). */
const importForm = z
  .object({
    // The file part as multipart-body.ts reads it (a text part is not a file: refused).
    file: z
      .object({ path: z.string(), filename: z.string().nullable(), size: z.number() }, 'must be a file part')
      .describe('The CSV file, up to 50 MB'),
    column_map: jsonText(
      'JSON: { email, first_name, last_name, unsubscribed: column names; properties: { key: column or { column, type: string|number|boolean } } }. A field it does not map, and a declared property it does not name, take the column of their own name (case-insensitive). A column the file lacks is 422 invalid_parameter at once. boolean reads true/false, yes/no, 1/0 into a string property ("true"/"false") or a number property (1/0).',
    ),
    on_conflict: z.string().optional().describe('upsert (update existing contacts) or skip (the default)'),
    segments: jsonText('JSON: [{ id }]: segments every imported contact is added to'),
    topics: jsonText("JSON: [{ id, subscription: 'opt_in' | 'opt_out' }]: choices recorded for every imported contact"),
  })
  .strict();

const counts = z.object({
  total: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int(),
  failed: z.number().int(),
});
const importSchema = z.object({
  object: z.literal('contact_import'),
  id: z.string(),
  status: z.enum(IMPORT_STATUSES),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  counts,
  failure_reason: z.string().nullable().describe('Why the import failed as a whole (status failed)'),
  resumed_at: z
    .string()
    .nullable()
    .describe(
      'When a run last took over the import after an earlier run stopped part-way (a restart); null if it ran in one go',
    ),
});
const failureSchema = z.object({
  object: z.literal('contact_import_failure'),
  row: z.number().int().describe('The row as a spreadsheet numbers it: the header is row 1'),
  email: z.string().nullable(),
  reason: z.string(),
});

/** Registered before the contact routes: /contacts/imports is not a contact named "imports". */
export const contactImportRoutes = [
  defineRoute({
    method: 'POST',
    path: '/contacts/imports',
    operationId: 'createContactImport',
    summary: 'Import contacts from a CSV file (multipart); answered at once, the scheduler does the work',
    tag,
    permission: 'full_access',
    scope: null,
    upload: {
      field: 'file',
      maxFileBytes: MAX_IMPORT_FILE_BYTES,
      directory: (services) => services.contactImports.uploadDirectory,
    },
    body: importForm,
    responses: { 201: { description: 'Queued', schema: refSchema('contact_import') } },
    audit: ({ body }, result) =>
      auditEvent('contact_import.created', 'contact_import', answeredId(result), {
        filename: body.file.filename,
        size: body.file.size,
      }),
    handler: async (ctx) => {
      const { file, ...fields } = ctx.body;
      const imp = await ctx.services.contactImports.create(
        ctx.caller.team.id,
        ctx.caller.apiKey.id,
        { path: file.path, filename: file.filename, size: file.size },
        fields,
        ctx.unit,
      );
      return { status: 201, body: { object: 'contact_import', id: imp.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/contacts/imports',
    operationId: 'listContactImports',
    summary: 'List contact imports, newest first',
    tag,
    permission: 'sending_access',
    scope: null,
    query: listImportsQuerySchema,
    responses: { 200: { description: 'A page of imports', schema: listSchema(importSchema) } },
    handler: async ({ query, caller, services }) => {
      const { imports, hasMore } = await services.contactImports.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(imports.map(publicContactImport), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/contacts/imports/:import_id',
    operationId: 'getContactImport',
    summary: 'Retrieve a contact import: status and counts',
    tag,
    permission: 'sending_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'The import', schema: importSchema } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: publicContactImport(await services.contactImports.get(caller.team.id, params.import_id)),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/contacts/imports/:import_id/failures',
    operationId: 'listContactImportFailures',
    summary: 'The failed rows an import keeps (the first 1,000), by row; after/before are row numbers',
    tag,
    permission: 'sending_access',
    scope: null,
    params,
    query: listFailuresQuerySchema,
    isolation,
    responses: { 200: { description: 'A page of failed rows', schema: listSchema(failureSchema) } },
    handler: async ({ params, query, caller, services }) => {
      const { failures, hasMore } = await services.contactImports.failures(caller.team.id, params.import_id, query);
      return { status: 200, body: listEnvelope(failures.map(publicImportFailure), hasMore) };
    },
  }),
];
