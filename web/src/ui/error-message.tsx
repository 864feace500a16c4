import { ApiError } from '../api/client';

/** What the person reads when a call fails: the API's own message, in words, never a raw status. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 403 && error.errorName === 'invalid_permission')
      return `You do not have permission for this: ${error.message}`;
    return error.message;
  }
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

export function ErrorMessage({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <div className="alert alert-error" role="alert">
      {title ? <strong>{title} </strong> : null}
      {describeError(error)}
      {/* One field error is the message itself (and marked on its field); several are listed. */}
      {error instanceof ApiError && error.fieldErrors.length > 1 ? (
        <ul>
          {error.fieldErrors.map((field) => (
            <li key={field.path}>
              <code>{field.path}</code>: {field.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The field error of `field` in a failed call, for the field's own message. */
export function fieldError(error: unknown, field: string): string | undefined {
  return error instanceof ApiError ? error.forField(field) : undefined;
}
