// ESLint: a small rule set the whole tree passes, for what tsc and prettier do not
// catch. tsc (strict, noUnusedLocals) checks types and names; prettier the format.
// Run by `npm run lint` and scripts/test.sh.
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'reports/', '**/testdata/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    rules: {
      // One import statement per module; types it also needs go inline (`import { a, type B }`).
      'import-x/no-duplicates': ['error', { 'prefer-inline': true }],
      // `_`-prefixed names are the tree's way to say "deliberately unused" (a rest sibling left out, a callback's position).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Declared before a cleanup closure that reads it, assigned once after: still a `let`.
      'prefer-const': ['error', { destructuring: 'all', ignoreReadBeforeAssign: true }],
      // Matching control characters is the job of the code that judges plugin output and writes JUnit.
      'no-control-regex': 'off',
    },
  },
  {
    // The few plain JavaScript files (the bin entry point, configs) run on Node.
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
