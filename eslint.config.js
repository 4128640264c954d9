// Lint rules that catch bugs the compiler does not: promises left floating or passed
// where a callback is expected, awaits of non-promises, needless assertions. Style is
// prettier's (npm run format); this file does not restate it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'vendor/',
      'bench/out/',
      'voxbench-runs/',
      'bench/pacing/artillery-processor.cjs',
      'test/fixtures/vllm-example-client.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's describe and it return promises the runner itself awaits.
      // A leading underscore marks a parameter or a destructured field left out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
    },
  },
);
