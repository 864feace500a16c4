import { AppError } from '../../../lib/errors.js';

/** 409 `confirmation_required`: purge without `confirm: true`; nothing was changed. */
export class ConfirmationRequiredError extends AppError {
  constructor(message: string, wouldRemove: number) {
    super(409, 'confirmation_required', message, { details: { would_remove: wouldRemove } });
  }
}
