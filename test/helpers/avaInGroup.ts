/**
 * What test files get when they import 'ava' (scripts/build-tests.mjs): ava's `test` itself, but that
 * what is passed to it or to one of its modifiers (`test.serial`, `test.before`, ...) goes through
 * declaredInGroup (test/helpers/testGroup.ts) while the file is a member of a group.
 */
import ava from 'ava';
import { declaredInGroup } from './testGroup';

function declaringInGroup<F extends object>(fn: F): F {
  return new Proxy(fn, {
    apply(target, thisArg, args: unknown[]) {
      return Reflect.apply(target as (...a: unknown[]) => unknown, thisArg, declaredInGroup(args));
    },
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? declaringInGroup(value) : value;
    },
  });
}

export default declaringInGroup(ava);

export { registerCompletionHandler } from 'ava';
