/**
 * The one error model. Every failure a client can cause is an AppError with a stable `code`;
 * the error handler turns it into `{type: "error", data: {code, message, details?}}`.
 * Messages are shown to people by clients: write them as sentences.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message = 'The request could not be understood.', code = 'bad_request', details?: ErrorDetail[]) {
    super(400, code, message, details);
  }
}

export class ValidationError extends AppError {
  constructor(details: ErrorDetail[], message?: string) {
    super(400, 'validation_error', message ?? summarize(details), details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'A valid API key is required: send the header "Authorization: Bearer <key>".') {
    super(401, 'unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You are not allowed to do that.') {
    super(403, 'forbidden', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found.') {
    super(404, 'not_found', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict') {
    super(409, code, message);
  }
}

export class GoneError extends AppError {
  constructor(message: string) {
    super(410, 'gone', message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'The request body is too large.') {
    super(413, 'payload_too_large', message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'Send the request body as JSON with "Content-Type: application/json".') {
    super(415, 'unsupported_media_type', message);
  }
}

export class UnprocessableError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(422, 'unprocessable', message, details);
  }
}

export class RateLimitError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'rate_limited', `Too many requests: try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`, undefined, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'The service is temporarily unavailable: try again shortly.') {
    super(503, 'service_unavailable', message, undefined, { 'Retry-After': '5' });
  }
}

function summarize(details: ErrorDetail[]): string {
  if (details.length === 0) return 'The request is invalid.';
  const first = details[0]!.message;
  return details.length === 1 ? first : `${first} (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''})`;
}
