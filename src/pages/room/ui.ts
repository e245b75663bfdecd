import { h, type ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../client/rest';

/**
 * The room page's small parts: an action's state (busy, the API's sentence when refused, a word when
 * done) shown beside its control, a labelled field, and a confirmation step for what cannot be undone.
 */

export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return (err as Error)?.message || 'Something went wrong.';
}

export interface Action {
  busy: boolean;
  error: string;
  done: string;
  /** Runs `work`; its refusal's sentence becomes `error`, the string it answers `done`. */
  run: (work: () => Promise<string | void>) => Promise<boolean>;
  reset: () => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  return {
    busy,
    error,
    done,
    reset: () => {
      setError('');
      setDone('');
    },
    run: async (work) => {
      setBusy(true);
      setError('');
      setDone('');
      try {
        const said = await work();
        if (said) setDone(said);
        return true;
      } catch (err) {
        setError(messageOf(err));
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

/**
 * What an action said, beside its control: the error in a live region that is always there (screen
 * readers announce a change in it), the success note likewise. `id` is what the control's
 * aria-describedby names.
 */
export function Feedback(props: { id: string; action: Action }) {
  return h('div', { class: 'feedback' }, [
    h('p', { id: props.id, class: 'error', role: 'alert' }, props.action.error),
    h('p', { class: 'done', role: 'status' }, props.action.done),
  ]);
}

export function Field(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: string;
  maxLength?: number;
  hint?: string;
  describedBy?: string;
  autocomplete?: string;
}) {
  const described = [props.hint ? `${props.id}-hint` : '', props.describedBy ?? ''].filter(Boolean).join(' ') || undefined;
  return h('div', { class: props.type === 'color' ? 'field narrow' : 'field' }, [
    h('label', { for: props.id }, props.label),
    h('input', {
      id: props.id,
      type: props.type ?? 'text',
      value: props.value,
      maxLength: props.maxLength,
      autocomplete: props.autocomplete ?? 'off',
      spellcheck: false,
      'aria-describedby': described,
      onInput: (e: Event) => props.onInput((e.target as HTMLInputElement).value),
    }),
    props.hint ? h('p', { class: 'hint', id: `${props.id}-hint` }, props.hint) : null,
  ]);
}

/**
 * A step between a button and what it does when that cannot be undone (or sends people out): the
 * question, its consequences, anything to fill in, and the confirming button (named as the action) or
 * Cancel. It takes the focus when it opens, so a keyboard user lands on it.
 */
export function Confirm(props: {
  id: string;
  question: string;
  children?: ComponentChildren;
  confirm: string;
  danger?: boolean;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.querySelector<HTMLElement>('input, button')?.focus(), []);
  return h(
    'div',
    {
      class: 'confirm',
      role: 'group',
      'aria-labelledby': `${props.id}-question`,
      ref: box,
    },
    [
      h('p', { id: `${props.id}-question`, class: 'question' }, props.question),
      props.children,
      h('div', { class: 'row' }, [
        h('button', { type: 'button', class: props.danger ? 'danger' : undefined, disabled: props.busy, onClick: props.onConfirm }, props.confirm),
        h('button', { type: 'button', class: 'secondary', onClick: props.onCancel }, 'Cancel'),
      ]),
    ],
  );
}
