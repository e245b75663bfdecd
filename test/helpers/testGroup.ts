/**
 * Test files that run together in one worker (scripts/build-tests.mjs writes a group file importing
 * each in turn). Each member keeps what it would have alone: its titles name it (`rolls › title`), and
 * it has an app context of its own (src/lib/appContext.ts), which its module-level code, its hooks and
 * tests, and the servers it starts use, so that its servers, event listeners and quotas are its own.
 */
import { AppContext, hostSeveralApps, setOutsideAppContext, withinAppContext } from '../../src/lib/appContext';

interface Member {
  name: string;
  context: AppContext;
}

let member: Member | null = null;

/** The test file about to be evaluated is `name` (its path under its folder, without `.test.ts`). */
export function enterGroupMember(name: string): void {
  hostSeveralApps();
  member = { name, context: new AppContext() };
  // Module-level code of the member (an event recorder made at load, say) lands in its context.
  setOutsideAppContext(member.context);
}

/**
 * What ava is given for a test or hook declared now: its title with the member's name in front, and
 * its implementation run in the member's context (with the functions it hands `t.teardown`). Outside
 * a group, as it is.
 */
export function declaredInGroup(args: unknown[]): unknown[] {
  if (!member) return args;
  const { name, context } = member;
  return args.map((arg, i) => {
    if (i === 0 && typeof arg === 'string') return `${name} › ${arg}`;
    if (typeof arg !== 'function') return arg;
    const implementation = arg as (t: { teardown(fn: () => unknown): void }, ...rest: unknown[]) => unknown;
    return (t: { teardown(fn: () => unknown): void }, ...rest: unknown[]) => {
      const teardown = t.teardown.bind(t);
      t.teardown = (fn) => teardown(() => withinAppContext(context, fn));
      return withinAppContext(context, () => implementation(t, ...rest));
    };
  });
}
