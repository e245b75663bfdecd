import { h, render, type ComponentChildren } from 'preact';
import type { ActivatePageState } from './state';

/**
 * The /activate page in the browser: everything rendered with Preact from the state the server put in
 * #app's data-page (page/state.ts), every value as text (an integration names itself: its name is
 * never markup). Plain HTML forms: the code is looked up with a GET, approved with a POST carrying
 * the CSRF token. Nothing here calls the API.
 */

const root = document.getElementById('app')!;
const state = JSON.parse(root.dataset.page ?? '{}') as ActivatePageState;

/** What the page calls an integration that sent no X-Extension header. */
const nameOf = (integration: string | null | undefined) => integration ?? 'An integration that gave no name';

function Csrf() {
  return h('input', { type: 'hidden', name: '_csrf', value: state.csrf });
}

function Layout(props: { title: string; children?: ComponentChildren }) {
  return h('div', { class: 'layout' }, [
    h('header', { class: 'top' }, [
      h('a', { class: 'brand', href: '/' }, 'Dice'),
      h('form', { method: 'post', action: '/signout', class: 'signout' }, [
        h(Csrf, null),
        h('span', { class: 'who' }, state.signedInAs),
        h('button', { type: 'submit', class: 'secondary' }, 'Sign out'),
      ]),
    ]),
    h('main', { class: 'content' }, [
      h('h1', null, props.title),
      state.error ? h('p', { class: 'message error', role: 'alert' }, state.error) : null,
      props.children,
    ]),
  ]);
}

function Enter() {
  return h(Layout, { title: 'Connect an integration' }, [
    h('p', null, 'An integration (a browser extension, a virtual tabletop, a bot) showed you a code to log in with. Type it here to let it roll dice as you.'),
    // A GET: looking a code up changes nothing; the approval is the POST of the next step.
    h('form', { method: 'get', action: '/activate', class: 'card' }, [
      h('div', { class: 'field' }, [
        h('label', { for: 'field-code' }, 'Code'),
        h('input', {
          id: 'field-code',
          name: 'code',
          class: 'code-input',
          value: state.code ?? '',
          required: true,
          maxLength: 16,
          autocomplete: 'off',
          spellcheck: false,
          autocapitalize: 'characters',
          'aria-describedby': 'field-code-hint',
        }),
        h('p', { class: 'hint', id: 'field-code-hint' }, '6 letters and digits, as the integration shows it.'),
      ]),
      h('button', { type: 'submit' }, 'Continue'),
    ]),
  ]);
}

function Confirm() {
  return h(Layout, { title: 'Connect an integration' }, [
    h('section', { class: 'card', 'aria-labelledby': 'asks' }, [
      h('p', { class: 'asks', id: 'asks' }, [h('strong', null, nameOf(state.integration)), ' asks to roll dice as ', h('strong', null, state.signedInAs), '.']),
      h('p', null, [
        'Code ',
        h('span', { class: 'code-shown' }, state.code ?? ''),
        state.expiresAt
          ? h('span', { class: 'hint' }, ` \u00b7 valid until ${new Date(state.expiresAt).toLocaleTimeString(undefined, { timeStyle: 'short' })}`)
          : null,
      ]),
      h(
        'p',
        { class: 'hint' },
        'Approving gives it an API key of your account, labelled with its name. The key shows up in your Developer settings, where you can revoke it at any time. Approve only a code you asked for yourself.',
      ),
      h('div', { class: 'actions' }, [
        h('form', { method: 'post', action: '/activate' }, [
          h(Csrf, null),
          h('input', { type: 'hidden', name: 'code', value: state.code ?? '' }),
          h('button', { type: 'submit' }, 'Approve'),
        ]),
        h('a', { href: '/activate' }, 'Enter another code'),
      ]),
    ]),
  ]);
}

function Done() {
  return h(Layout, { title: 'Integration connected' }, [
    h('p', { class: 'message notice', role: 'status' }, [
      `${nameOf(state.integration)} can now roll as ${state.signedInAs}; you can revoke its key in `,
      h('a', { href: '/account' }, 'Developer settings'),
      '.',
    ]),
    h('p', { class: 'hint' }, 'It receives its key the next time it asks, within a few seconds: you can go back to it now.'),
  ]);
}

const STEPS = { enter: Enter, confirm: Confirm, done: Done };
root.textContent = '';
render(h(STEPS[state.step] ?? Enter, null), root);
