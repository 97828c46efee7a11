// eslint over the extension's JavaScript (make lint): the recommended rules,
// with each folder's globals: the worker's ES modules, the content scripts
// and page-world scripts (classic scripts), popup and options, Node tests.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['extension/lib/', 'node_modules/', 'bin/', 'e2e/', 'testdata/', '**/testdata/'] },
  js.configs.recommended,
  {
    rules: {
      // `(_, x) =>` marks an argument deliberately unused; a catch's binding may go unused.
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['extension/background.js', 'extension/sw/**/*.js', 'extension/generated/constants.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.serviceworker, ...globals.webextensions } },
  },
  {
    files: ['extension/ui/options.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser, ...globals.webextensions } },
  },
  {
    files: ['extension/ui/popup.js', 'extension/content.js', 'extension/content/**/*.js', 'extension/generated/constants.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, ...globals.webextensions } },
  },
  {
    // The content scripts share generated/constants.js's global; gate.js, scrub.js and constants.js
    // also export themselves to the Node tests.
    files: ['extension/content.js', 'extension/content/**/*.js', 'extension/generated/constants.js'],
    languageOptions: { globals: { module: 'readonly', require: 'readonly' } },
  },
  {
    files: ['extension/content.js', 'extension/content/**/*.js'],
    languageOptions: { globals: { GASOLINE_CONSTANTS: 'readonly' } },
  },
  {
    files: ['extension/page/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    files: ['extension/test/**/*.js', 'extension/test/**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['extension/test/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
];
