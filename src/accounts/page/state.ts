/**
 * What the server hands an account page (JSON in the page's data-page attribute, escaped with
 * escape-html): the script (page/main.ts) renders everything from it with Preact, putting every value
 * in the DOM as text.
 */
export type View = 'signin' | 'signup' | 'claim' | 'account';

export interface DeveloperKeyView {
  label: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface PageState {
  view: View;
  /** The forms' CSRF token (accounts/csrf.ts). */
  csrf: string;
  signupAllowed: boolean;
  /** The signed-in user's username, on every page (the header's Sign out), or absent. */
  signedInAs?: string;
  error?: string;
  notice?: string;
  /** The username typed, given back after a refused form (never a password). */
  username?: string;
  /** Where sign-in, sign-up and claim go once done (a path of this site: accounts/nextPath.ts). */
  next?: string;
  account?: {
    username: string;
    name: string;
    keys: DeveloperKeyView[];
    /** A key just made: shown this once. */
    newKey?: { key: string; prefix: string; label: string };
  };
}
