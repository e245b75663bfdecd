/**
 * The frame of the dice pages (dice box, theme page, share link page): the header with the site's
 * links and who is signed in, a main column with the page's heading. Browser module (Preact).
 */
import { h, type ComponentChildren } from 'preact';
import { ApiError } from '../../client/rest';
import { pageSession } from '../client/pageKey';

export const session = pageSession();

export function Layout(props: { title: string; children?: ComponentChildren; wide?: boolean }) {
  return h('div', { class: 'layout' }, [
    h('header', { class: 'top' }, [
      h('a', { class: 'brand', href: '/' }, 'Dice'),
      h('nav', { 'aria-label': 'Dice' }, [
        h('a', { href: '/dice-box' }, 'My dice box'),
        h('a', { href: '/dice/new' }, 'Upload a theme'),
        h('a', { href: '/' }, 'My rooms'),
      ]),
      session
        ? h('form', { method: 'post', action: '/signout', class: 'signout' }, [
            h('input', { type: 'hidden', name: '_csrf', value: session.csrf }),
            h('a', { class: 'who', href: '/account' }, session.user),
            h('button', { type: 'submit', class: 'secondary small' }, 'Sign out'),
          ])
        : h('a', { href: `/signin?next=${encodeURIComponent(location.pathname)}` }, 'Sign in'),
    ]),
    h('main', { class: props.wide ? 'content wide' : 'content' }, [h('h1', null, props.title), props.children]),
  ]);
}

/** The sentence for a refusal of the API, for people. */
export function refusalOf(err: unknown): string {
  if (err instanceof ApiError && err.status === 401) return 'The key this browser keeps no longer works: sign in again.';
  if (err instanceof ApiError) return err.message;
  return (err as Error)?.message || 'Something went wrong.';
}

/** A link to sign in and come back here. */
export const signInHref = () => `/signin?next=${encodeURIComponent(location.pathname + location.search)}`;
