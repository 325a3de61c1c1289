import { ApiError } from '../../errors.ts';
import type { FieldError } from '../../schemas/ajv.ts';

/**
 * The model (or the caller) supplied tool input that cannot become a request. Kept apart from
 * `ApiError` so the executor can choose: answer the HTTP caller with a 400, or hand the
 * reasons back to the model so it can retry with better arguments.
 */
export class ToolInputError extends Error {
  constructor(readonly details: FieldError[]) {
    const first = details[0];
    super(first ? `${first.field} ${first.message}` : 'input is invalid');
    this.name = 'ToolInputError';
  }

  toApiError(): ApiError {
    return new ApiError('ValidationError', `Invalid tool input: ${this.message}`, this.details);
  }
}
