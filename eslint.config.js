// @ts-check
/**
 * Lint (`npm run lint`, run in CI by .ci/run): the @eslint/js and typescript-eslint recommended rules over src/,
 * test/, bench/ and scripts/, without type information (fast). Formatting is checked by prettier
 * (.prettierrc.json), run after eslint in `npm run lint`; `npm run format` applies it.
 * Undefined names are left to the TypeScript checker (`npm run typecheck`, which also checks bench/ and
 * scripts/ through tsconfig.scripts.json), as typescript-eslint advises.
 */
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/clients/**', 'bench/node_modules/**', 'fixtures/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      'no-undef': 'off',
      // `catch {}` where a failure is expected and harmless (best-effort clean-up in bench/)
      'no-empty': ['error', { allowEmptyCatch: true }],
      // `let x` assigned after closures that read it (Chain.create, Executor.create) stays `let`
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // a leading underscore marks a parameter or binding kept for its position or its shape
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
          caughtErrors: 'none',
        },
      ],
    },
  },
  {
    // native contract method tables hold methods of different argument types (NativeMethod<any>[])
    files: ['src/execution/native/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // src/ lines stay within 120 columns (prettier wraps code; comments and strings are wrapped by hand). Let through:
    // import/export lines whose module path makes them long, and a 32-byte-or-longer hex literal on its own line.
    files: ['src/**'],
    rules: {
      'max-len': [
        'error',
        {
          code: 120,
          tabWidth: 2,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
          ignorePattern: "^\\s*(import|export)\\s.+\\sfrom\\s'[^']+'$|^\\s*'(0x)?[0-9a-fA-F]{64,}',?$",
        },
      ],
    },
  },
  {
    // tests read arbitrary JSON-RPC answers
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
)
