/**
 * The engine's own error: no HTTP, no app error classes. The roll endpoint maps it to the error body
 * (`{code, message, details}`) with `status`.
 */
export interface DiceErrorDetail {
  /** where the problem is: `dice[3].value`, `operator.k`, `equation` */
  path: string;
  /** a sentence for people */
  message: string;
}

export type DiceErrorCode =
  | 'invalid_dice' // a die entry is malformed or its predetermined value is not one of its faces
  | 'invalid_operator' // the operator object is malformed or asks for something impossible
  | 'invalid_equation' // the equation does not parse
  | 'too_many_dice' // past the request or roll limits
  | 'unknown_die'; // the theme has no such die (422)

export class DiceError extends Error {
  readonly code: DiceErrorCode;
  readonly status: 400 | 422;
  readonly details: DiceErrorDetail[];

  constructor(code: DiceErrorCode, path: string, message: string, status: 400 | 422 = 400) {
    super(message);
    this.name = 'DiceError';
    this.code = code;
    this.status = status;
    this.details = [{ path, message }];
  }
}
