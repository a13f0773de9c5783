// Lint rules that protect the design: workflow code stays deterministic (no I/O imports), and no promise
// is left floating anywhere.
import tseslint from 'typescript-eslint';

const bannedInWorkflows = [
  'node:*', 'fs', 'fs/*', 'path', 'crypto', 'http', 'https', 'net', 'dns', 'os', 'child_process', 'stream', 'url', 'util',
  '@prisma/*', '**/generated/**', '**/prisma', '**/prisma/*', 'pg', 'pg/*', 'postmark', 'fastify', 'fastify-*', '@fastify/*',
  '**/activities', '**/activities/*', '**/integrations/**', '**/sandbox/**', '**/api/**', '**/config', '**/config/*',
  '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'generated/**', '.data/**', 'tools/**', 'web/dist/**', '**/*.mjs', 'eslint.config.js', /* shipped into Shopify themes as plain ES5, tested in the browser */ 'plugins/storefront-a-theme-extension/assets/**'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    ignores: ['workflows/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: bannedInWorkflows, allowTypeImports: true, message: 'Workflow code must stay deterministic: only @temporalio/workflow, domain/, messages files and `import type` from activities.' },
          ],
        },
      ],
    },
  },
);
