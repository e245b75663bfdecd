// @ts-check
/**
 * The lint rules of `npm run lint` and `npm test` (docs/architecture.md, "Lint and format"): ESLint's
 * recommended rules and typescript-eslint's recommended-type-checked ones, which read the types of
 * tsconfig.json, with the promise rules as errors. Every rule turned off or tuned says why beside it.
 */
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** @type {Record<string, 'readonly'>} */
const NODE_GLOBALS = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'fetch', 'setTimeout', 'clearTimeout', 'module', 'require', '__dirname'].map((name) => [name, 'readonly']),
);

export default defineConfig(
  { ignores: ['dist/**', '.test-build/**', 'data/**', 'test-artifacts/**', 'profiles/**'] },
  {
    files: ['**/*.ts', '**/*.mts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      // The one program of tsconfig.json (every linted file is in it) rather than the project service,
      // which answers per file as an editor asks: 47 core-seconds for the whole tree instead of 53.
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise nobody awaits loses its rejection; one handed where a function's result is ignored (a
      // listener, a callback) is never awaited either. Fire and forget is written `void` with the reason.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `xs[i]!` states that the element is there: without noUncheckedIndexedAccess TypeScript sees no
      // need for it, but the reader does.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Removing `async` from a function that does not await would turn its throws into synchronous ones.
      '@typescript-eslint/require-await': 'off',
      // `String(x)` of a value typed unknown (a database row's column, a parsed body, a socket frame) is
      // deliberate here; the rule cannot tell those from objects.
      '@typescript-eslint/no-base-to-string': 'off',
      // The input checks match control characters on purpose (names, paths and headers refuse them).
      'no-control-regex': 'off',
      // A leading underscore names a parameter a signature needs (Express's four-argument error handler)
      // or a property left out of a rest object.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // A callback's error, typed unknown, is passed on to reject() as it came.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts', 'scripts/**/*.mts'],
    rules: {
      // Tests and benchmarks read JSON bodies, socket events and child processes' messages as `any` and
      // assert on them: typing each read would only restate the assertion.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Assertion messages print whatever they were given (`${unknown}`, arrays).
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  {
    files: ['src/config.ts'],
    rules: {
      // The environment comes out of Joi's validation as `any`, read once into Config, whose interface
      // states each value's type.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [js.configs.recommended],
    // The plain scripts run on Node alone: its globals, nothing of the browser's.
    languageOptions: { globals: NODE_GLOBALS },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
