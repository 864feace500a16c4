import { randomBytes } from 'node:crypto';
import { mkdir, unlink } from 'node:fs/promises';
import { errors as formErrors, formidable, multipart, type Fields, type Files } from 'formidable';
import type { Context } from 'koa';
import { ValidationError } from '../lib/errors.js';
import type { ReadBody } from './request-body.js';

/** What a route taking an upload declares (RouteSpec.upload); `directory` is resolved per request. */
export type UploadLimits = { field: string; maxFileBytes: number };

/** Room for the form's other fields and part headers above the file's own limit. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/**
 * A file a request uploaded, written to disk as it arrived. `toJSON` is what the request log
 * records: the client's name and the size, never the temporary path.
 */
export class UploadedFile {
  constructor(
    readonly path: string,
    readonly filename: string | null,
    readonly size: number,
  ) {}

  toJSON() {
    return { filename: this.filename, size: this.size };
  }
}

/** A read multipart body: its text fields and its file; `discard` removes the file unless it was moved. */
export type ReadUpload = ReadBody & { discard(): Promise<void> };

/**
 * Reads a multipart/form-data body with formidable, the file streamed to `directory` (never
 * held in memory) and cut off at `maxFileBytes`; text fields are small (1 MB in all). Only the
 * routes that declare an upload read multipart: every other route keeps refusing it.
 * Refusals are the spec's 400 validation_error, as for JSON bodies; a file over the limit is
 * answered without reading the rest, asking the connection to close.
 */
export async function readUpload(ctx: Context, limits: UploadLimits, directory: string): Promise<ReadUpload> {
  if (!ctx.is('multipart/form-data'))
    throw new ValidationError('Content-Type must be multipart/form-data', {
      errors: [{ path: '', message: 'body must be multipart/form-data' }],
    });
  if ((ctx.request.length ?? 0) > limits.maxFileBytes + FORM_OVERHEAD_BYTES) throw tooLarge(limits);
  await mkdir(directory, { recursive: true });
  const form = formidable({
    uploadDir: directory,
    filename: () => `${randomBytes(12).toString('hex')}.upload.tmp`,
    enabledPlugins: [multipart],
    maxFiles: 1,
    maxFileSize: limits.maxFileBytes,
    maxTotalFileSize: limits.maxFileBytes,
    allowEmptyFiles: true,
    minFileSize: 0,
    maxFields: 20,
    maxFieldsSize: FORM_OVERHEAD_BYTES,
  });
  let parts: [Fields, Files];
  try {
    parts = await form.parse<string, string>(ctx.req);
  } catch (err) {
    throw refusal(err as Error & { code?: unknown; httpCode?: number }, limits);
  }
  const [fields, files] = parts;
  const uploaded = Object.values(files).flatMap((list) => list ?? []);
  const discard = () => Promise.all(uploaded.map((file) => unlink(file.filepath).catch(() => undefined))).then(noop);
  const parsed: Record<string, unknown> = {};
  try {
    for (const [name, values] of Object.entries(fields)) {
      if ((values?.length ?? 0) > 1) throw repeated(name);
      parsed[name] = values?.[0];
    }
    for (const [name, list] of Object.entries(files)) {
      const file = list?.[0];
      if (!file) continue;
      if (name !== limits.field)
        throw new ValidationError(`Unexpected file field "${name}": the file goes in "${limits.field}"`, {
          errors: [{ path: name, message: `unknown file field; send the file as "${limits.field}"` }],
        });
      if (name in parsed) throw repeated(name);
      parsed[name] = new UploadedFile(file.filepath, file.originalFilename, file.size);
    }
  } catch (err) {
    await discard();
    throw err;
  }
  return { parsed, raw: '', discard };
}

const noop = () => undefined;

const repeated = (name: string) =>
  new ValidationError(`The field "${name}" is given more than once`, {
    errors: [{ path: name, message: 'must be given once' }],
  });

function tooLarge(limits: UploadLimits): ValidationError {
  const mb = Math.round(limits.maxFileBytes / 1024 / 1024);
  // Connection: close, so Node ends the connection once the answer is out (the rest is not read).
  return new ValidationError(`The file is larger than ${mb} MB`, {
    errors: [{ path: limits.field, message: `must be at most ${limits.maxFileBytes} bytes (${mb} MB)` }],
    headers: { connection: 'close' },
  });
}

function refusal(err: Error & { code?: unknown; httpCode?: number }, limits: UploadLimits): Error {
  if (err.code === formErrors.biggerThanTotalMaxFileSize || err.code === formErrors.biggerThanMaxFileSize)
    return tooLarge(limits);
  if (err.code === formErrors.maxFilesExceeded)
    return new ValidationError('Only one file may be uploaded', {
      errors: [{ path: limits.field, message: 'one file only' }],
      headers: { connection: 'close' },
    });
  // The client went away: nobody reads an answer; the error is logged like any other.
  if (err.code === formErrors.aborted) return err;
  if (typeof err.httpCode === 'number' && err.httpCode >= 400 && err.httpCode < 500)
    return new ValidationError(`The multipart body could not be read: ${err.message}`, {
      errors: [{ path: '', message: err.message }],
      headers: { connection: 'close' },
    });
  return err;
}
