/**
 * Where a sign-in, sign-up or claim goes once done (`?next=` on the page, a hidden field in its form):
 * a path of this site only, so a link cannot send a person who just signed in to another site (an
 * open redirect). `//host` and `/\host` are other sites to a browser; control characters and
 * anything over 512 characters are refused too. Anything refused is /account.
 */
const SAME_SITE_PATH = /^\/(?![/\\])[\x21-\x7e]{0,511}$/;

export const DEFAULT_NEXT = '/account';

export function nextPath(value: unknown): string {
  return typeof value === 'string' && SAME_SITE_PATH.test(value) ? value : DEFAULT_NEXT;
}
