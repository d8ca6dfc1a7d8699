// typescript-eslint with a few type-checked rules, each for a defect this code can really have
// (docs/development.md, "Lint"). Formatting is Biome's job: no style rule is turned on here.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'src/generated/**', 'test/fixtures/pages/**', 'scripts/bench/results/**', '.bench/**'],
  },
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // A promise nobody awaits or catches: its rejection is lost, or kills the process.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a callback's result is ignored (an event handler, forEach, a condition).
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // `return promise` inside try: the catch and finally run before the promise settles.
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      // Throwing or rejecting with a string or a plain object loses the stack and fails `instanceof`;
      // passing on a caught value or an abort signal's reason as it came is fine.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'none', caughtErrors: 'none', ignoreRestSiblings: true, varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // `any` in the library turns off the checker for whoever uses what it returns, users included.
    files: ['src/**/*.ts', 'protocol/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
);
