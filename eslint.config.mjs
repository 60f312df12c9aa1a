// @ts-check
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Every folder under services/, so a new service is covered by the rules below the day it is added. */
const SERVICES = readdirSync(new URL('./services/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.infra/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { project: ['./tsconfig.check.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Fastify handlers and plugins are async by convention, with or without an await.
      '@typescript-eslint/require-await': 'off',
      eqeqeq: ['error', 'smart'],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  // The dashboard runs in the browser, built by its own project (DOM types, ES modules).
  {
    files: ['services/analytics/dashboard/src/**/*.ts'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: {
        project: ['./services/analytics/dashboard/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  // Entry points and command-line tools talk to a terminal.
  {
    files: ['**/src/main.ts', '**/src/**/*-cli.ts', '**/src/cli.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  // A service never imports another service; shared code goes in libs/.
  // A path leaving src/ is another package's: two levels up from src/ and its folders, three from theirs.
  ...SERVICES.flatMap((service) =>
    [
      { files: [`services/${service}/src/**/*.ts`], outOfSrc: '../../*' },
      { files: [`services/${service}/src/*/*/**/*.ts`], outOfSrc: '../../../*' },
    ].map(({ files, outOfSrc }) => ({
      files,
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                group: SERVICES.filter((s) => s !== service).map((s) => `@shortlink/service-${s}`),
                message: 'A service never imports another service: move shared code to libs/.',
              },
              { group: [outOfSrc], message: 'Import other packages by name (@shortlink/...), not by path.' },
            ],
          },
        ],
      },
    })),
  ),
  // The API document describes the whole API: this one file gathers every service's route table.
  {
    files: ['services/api-docs/src/api-routes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../../*'], message: 'Import other packages by name (@shortlink/...), not by path.' }] },
      ],
    },
  },
  // Only entry points read the environment.
  {
    files: ['libs/*/src/**/*.ts', 'services/*/src/**/*.ts'],
    ignores: ['**/src/main.ts', '**/src/**/*-cli.ts', '**/src/cli.ts', '**/*.test.ts', 'libs/testing/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Only main.ts reads the environment; take values as arguments.',
        },
      ],
    },
  },
  {
    // Tests and the suites they share read JSON bodies freely.
    files: ['**/*.test.ts', 'test/contract/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { ...globals.node },
    },
  },
  // Worker threads the tests start run plain CommonJS.
  {
    files: ['test/support/workers/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
