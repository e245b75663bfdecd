import type { User } from '../db/models';

declare module 'express-serve-static-core' {
  interface Request {
    /** Request id: the caller's X-Request-Id when sane, else a fresh one. Echoed in the response. */
    id: string;
    /** The authenticated user (set by `auth`). */
    user?: User;
    /** The id of the API key it authenticated with. */
    apiKeyId?: number;
  }
}

export {};
