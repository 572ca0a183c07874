import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  // A request's client address has one reading, the one the send-message lane makes too.
  {
    files: ['packages/server/src/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['request', 'req'].flatMap((object) =>
          ['ip', 'ips'].map((property) => ({ object, property, message: 'Read request.clientAddress (http/client-address.ts).' })),
        ),
      ],
    },
  },
  // The web console runs in the browser.
  { files: ['packages/console/src/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
);
