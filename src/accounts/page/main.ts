import { h, render, type ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { DeveloperKeyView, PageState } from './state';
import { GUEST_KEY_STORAGE } from '../../pages/client/pageKey';

/**
 * The account pages in the browser: everything rendered with Preact from the state the server put in
 * #app's data-page (page/state.ts), every value as text. Forms are plain HTML forms posting to the
 * server with the CSRF token; nothing here calls the API.
 */

/** Where the board keeps the guest's key (src/board/main.ts): the claim form sends it. */
const KEY_STORAGE = GUEST_KEY_STORAGE;

const root = document.getElementById('app')!;
const state = JSON.parse(root.dataset.page ?? '{}') as PageState;

/** A link to another account page that keeps where this one goes once done (`next`). */
const withNext = (path: string) => (state.next ? `${path}?next=${encodeURIComponent(state.next)}` : path);

function Csrf() {
  return h('input', { type: 'hidden', name: '_csrf', value: state.csrf });
}

/** Where the form goes once done (only on sign-in, sign-up and claim). */
function Next() {
  return state.next ? h('input', { type: 'hidden', name: 'next', value: state.next }) : null;
}

function Field(props: {
  label: string;
  name: string;
  type?: string;
  autocomplete?: string;
  minLength?: number;
  maxLength?: number;
  value?: string;
  hint?: string;
}) {
  const id = `field-${props.name}`;
  return h('div', { class: 'field' }, [
    h('label', { for: id }, props.label),
    h('input', {
      id,
      name: props.name,
      type: props.type ?? 'text',
      autocomplete: props.autocomplete,
      minLength: props.minLength,
      maxLength: props.maxLength,
      value: props.value,
      required: true,
      spellcheck: false,
      autocapitalize: 'none',
      'aria-describedby': props.hint ? `${id}-hint` : undefined,
    }),
    props.hint ? h('p', { class: 'hint', id: `${id}-hint` }, props.hint) : null,
  ]);
}

function Messages() {
  return h('div', null, [
    state.error ? h('p', { class: 'message error', role: 'alert' }, state.error) : null,
    state.notice ? h('p', { class: 'message notice', role: 'status' }, state.notice) : null,
  ]);
}

function Layout(props: { title: string; children?: ComponentChildren }) {
  return h('div', { class: 'layout' }, [
    h('header', { class: 'top' }, [
      h('a', { class: 'brand', href: '/' }, 'Dice'),
      state.signedInAs
        ? h('form', { method: 'post', action: '/signout', class: 'signout' }, [
            h(Csrf, null),
            h('span', { class: 'who' }, state.signedInAs),
            h('button', { type: 'submit', class: 'secondary' }, 'Sign out'),
          ])
        : h('nav', { 'aria-label': 'Account' }, [
            h('a', { href: withNext('/signin') }, 'Sign in'),
            state.signupAllowed ? h('a', { href: withNext('/signup') }, 'Sign up') : null,
          ]),
    ]),
    h('main', { class: 'content' }, [h('h1', null, props.title), h(Messages, null), props.children]),
  ]);
}

function SignIn() {
  return h(Layout, { title: 'Sign in' }, [
    h('form', { method: 'post', action: '/signin', class: 'card' }, [
      h(Csrf, null),
      h(Next, null),
      h(Field, { label: 'Username', name: 'username', autocomplete: 'username', maxLength: 64, value: state.username }),
      h(Field, { label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password', maxLength: 256 }),
      h('button', { type: 'submit' }, 'Sign in'),
    ]),
    h('p', { class: 'aside' }, [
      state.signupAllowed ? h('a', { href: withNext('/signup') }, 'Create an account') : null,
      h('a', { href: withNext('/claim') }, 'Keep the guest account of this browser'),
    ]),
  ]);
}

function SignUp() {
  if (!state.signupAllowed) return h(Layout, { title: 'Create an account' }, h('p', { class: 'aside' }, h('a', { href: withNext('/signin') }, 'Sign in')));
  return h(Layout, { title: 'Create an account' }, [
    h('form', { method: 'post', action: '/signup', class: 'card' }, [
      h(Csrf, null),
      h(Next, null),
      h(Field, {
        label: 'Username',
        name: 'username',
        autocomplete: 'username',
        maxLength: 64,
        value: state.username,
        hint: 'Letters, digits, dots, dashes or underscores; up to 64.',
      }),
      h(Field, {
        label: 'Password',
        name: 'password',
        type: 'password',
        autocomplete: 'new-password',
        minLength: 8,
        maxLength: 256,
        hint: 'At least 8 characters.',
      }),
      h('button', { type: 'submit' }, 'Sign up'),
    ]),
    h('p', { class: 'aside' }, [
      h('a', { href: withNext('/signin') }, 'I have an account: sign in'),
      h('a', { href: withNext('/claim') }, 'Keep the guest account of this browser'),
    ]),
  ]);
}

function Claim() {
  const key = localStorage.getItem(KEY_STORAGE) ?? '';
  return h(Layout, { title: 'Keep your guest account' }, [
    h(
      'p',
      null,
      'Choose a username and a password for the guest this browser plays as: its rooms, rolls and dice stay yours, and you can sign in from any browser.',
    ),
    key
      ? h('form', { method: 'post', action: '/claim', class: 'card' }, [
          h(Csrf, null),
          h(Next, null),
          h('input', { type: 'hidden', name: 'key', value: key }),
          h(Field, {
            label: 'Username',
            name: 'username',
            autocomplete: 'username',
            maxLength: 64,
            value: state.username,
            hint: 'Letters, digits, dots, dashes or underscores; up to 64.',
          }),
          h(Field, {
            label: 'Password',
            name: 'password',
            type: 'password',
            autocomplete: 'new-password',
            minLength: 8,
            maxLength: 256,
            hint: 'At least 8 characters.',
          }),
          h('button', { type: 'submit' }, 'Keep my account'),
        ])
      : h('p', { class: 'message notice', role: 'status' }, 'This browser plays as no guest yet: open a room\u2019s board and choose "Play as guest" first.'),
  ]);
}

function formatDate(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never';
}

function NewKey(props: { value: string; label: string }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('Copied.');
    } catch {
      setCopied('Copying was refused: select the key and copy it.');
    }
  };
  return h('section', { class: 'card new-key', 'aria-labelledby': 'new-key-title' }, [
    h('h2', { id: 'new-key-title' }, `Your new key "${props.label}"`),
    h('p', null, 'Copy it now: it is not shown again.'),
    h('code', { class: 'key', id: 'new-key' }, props.value),
    h('div', { class: 'row' }, [h('button', { type: 'button', onClick: copy }, 'Copy key'), h('span', { role: 'status', class: 'hint' }, copied)]),
  ]);
}

function KeyItem(props: { item: DeveloperKeyView }) {
  const k = props.item;
  return h('li', { class: 'key-item' }, [
    h('div', { class: 'key-text' }, [
      h('strong', null, k.label),
      h('code', null, `${k.prefix}\u2026`),
      h('span', { class: 'hint' }, `Created ${formatDate(k.createdAt)} · last used ${formatDate(k.lastUsedAt)}`),
    ]),
    h('form', { method: 'post', action: '/account/keys/revoke' }, [
      h(Csrf, null),
      h('input', { type: 'hidden', name: 'prefix', value: k.prefix }),
      h('button', { type: 'submit', class: 'danger', 'aria-label': `Revoke key ${k.label} (${k.prefix})` }, 'Revoke'),
    ]),
  ]);
}

function Account() {
  const account = state.account!;
  return h(Layout, { title: 'Your account' }, [
    h('p', null, ['Signed in as ', h('strong', null, account.username), '.']),
    account.newKey ? h(NewKey, { value: account.newKey.key, label: account.newKey.label }) : null,
    h('section', { 'aria-labelledby': 'keys-title' }, [
      h('h2', { id: 'keys-title' }, 'API keys'),
      h('p', { class: 'hint' }, 'Integrations and scripts use a key as "Authorization: Bearer <key>". Revoking one cuts its open connections too.'),
      account.keys.length
        ? h(
            'ul',
            { class: 'keys' },
            account.keys.map((k) => h(KeyItem, { key: k.prefix, item: k })),
          )
        : h('p', null, 'No keys yet.'),
      h('form', { method: 'post', action: '/account/keys', class: 'card inline' }, [
        h(Csrf, null),
        h(Field, { label: 'Label', name: 'label', maxLength: 64 }),
        h('button', { type: 'submit' }, 'Create key'),
      ]),
    ]),
    h('section', { 'aria-labelledby': 'password-title' }, [
      h('h2', { id: 'password-title' }, 'Password'),
      h('form', { method: 'post', action: '/account/password', class: 'card' }, [
        h(Csrf, null),
        h(Field, { label: 'Current password', name: 'current', type: 'password', autocomplete: 'current-password', maxLength: 256 }),
        h(Field, {
          label: 'New password',
          name: 'password',
          type: 'password',
          autocomplete: 'new-password',
          minLength: 8,
          maxLength: 256,
          hint: 'At least 8 characters. Changing it signs you out everywhere.',
        }),
        h('button', { type: 'submit' }, 'Change password'),
      ]),
    ]),
  ]);
}

const VIEWS = { signin: SignIn, signup: SignUp, claim: Claim, account: Account };
root.textContent = '';
render(h(VIEWS[state.view] ?? SignIn, null), root);
