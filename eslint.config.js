// Lint rules that protect the design: workflow code stays deterministic (no I/O imports), the layers import
// downwards only (api/ and activities/ share model/, never each other; simulators are witnesses written from the
// platforms' documentation, not from our clients; test helpers stay in test/, and neither production code nor
// scripts/ imports them). None of these rules needs types, so ESLint parses each file alone. The rules that need types (no promise left floating or misused) run in oxlint on
// TypeScript 7's native checker: .oxlintrc.json.
import tseslint from 'typescript-eslint';

const bannedInWorkflows = [
  'node:*', 'fs', 'fs/*', 'path', 'crypto', 'http', 'https', 'net', 'dns', 'os', 'child_process', 'stream', 'url', 'util',
  '@prisma/*', '**/generated/**', '**/prisma', '**/prisma/*', 'pg', 'pg/*', 'postmark', 'fastify', 'fastify-*', '@fastify/*',
  '**/activities', '**/activities/**', '**/worker/**', '**/integrations/**', '**/sandbox/**', '**/api/**', '**/config', '**/config/*',
  '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing',
];

// Our money and price arithmetic: domain/money.ts and the domain modules that price with it (in any domain/ folder).
const SERVICE_MONEY = ['money', 'discounts', 'shipping', 'payment-check'].flatMap((m) => [`**/domain/${m}`, `**/domain/${m}.*`, `**/domain/**/${m}`, `**/domain/**/${m}.*`]);

const TEST_HELPERS = { group: ['**/test/**'], message: 'Test helpers live in test/ and are imported by tests only.' };
const restrict = (...patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] });
const testFiles = ['**/*.test.ts', '**/*.test.tsx', 'test/**'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'generated/**', '.data/**', 'tools/**', 'web/dist/**', /* the SDK's build output (sdk/test/package.test.ts builds it) */ 'sdk/dist/**', '**/*.mjs', 'eslint.config.js', /* the script tag's build (web/checkout-takeover/), copied there by scripts/web-build.ts */ 'store-extensions/storefront-a-theme-extension/assets/**', /* probes with the mistakes the lint rules must find (test/lint/) */ 'test/lint/fixtures/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
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
  {
    // The API reads and writes through model/ (sessions, pricing, connections); activities are the worker's side.
    files: ['api/**/*.ts'],
    ignores: testFiles,
    rules: restrict(
      { group: ['**/activities', '**/activities/**', '**/worker/**'], message: 'api/ must not import activities/ or the worker: share code through model/.' },
      TEST_HELPERS,
    ),
  },
  {
    // Merchant routes read and write the caller's data through request.merchantData (model/merchant/merchant-scope.ts), which puts
    // the merchant id into every query: a query on `db` is one that could forget it. The few that must look across
    // merchants (is this email, shop or store someone else's?) say so in an eslint-disable comment.
    files: ['api/routes/merchant/**/*.ts', 'api/routes/orders/**/*.ts', 'api/routes/billing/index.ts'],
    ignores: testFiles,
    rules: {
      'no-restricted-syntax': ['error', ...[
        'CallExpression[callee.object.object.name="db"]',
        'CallExpression[callee.object.name="db"][callee.property.name=/^\\$/]',
        'TaggedTemplateExpression[tag.object.name="db"]',
      ].map((selector) => ({ selector, message: 'Merchant routes query through request.merchantData (model/merchant/merchant-scope.ts), scoped to the caller; a query across merchants says why in an eslint-disable comment.' }))],
    },
  },
  {
    // Activities run the steps a workflow decides, below it: workflows import their types, never the other way (an
    // activity's answer is typed in its own file; what the API, the model and a workflow share, in domain/).
    files: ['activities/**/*.ts', 'model/**/*.ts'],
    ignores: testFiles,
    rules: restrict(
      { group: ['**/workflows', '**/workflows/**'], message: 'activities/ and model/ sit below workflows/: type an activity\'s answer in its own file, and share the rest through domain/.' },
      { group: ['**/worker/**'], message: 'The worker process (worker/) wires activities and workflows; nothing it wires imports it.' },
      TEST_HELPERS,
    ),
  },
  {
    // A simulator is a witness: written from the platform's documentation, it shares nothing with our clients. Nor
    // with our money and price arithmetic (domain/money.ts and the modules that price with it): a simulator counting
    // with our code would agree with a bug in it, and the contract tests would pass. Each platform's money is its
    // own (sandbox/storefront-a/money.ts, sandbox/storefront-b/money.ts, sandbox/processor/money.ts).
    files: ['sandbox/**/*.ts'],
    ignores: testFiles,
    rules: restrict(
      { group: ['**/integrations/**', '**/activities', '**/activities/**', '**/worker/**', '**/api/**', '**/model/**'], message: 'Simulators import nothing from our clients, activities, model or API.' },
      { group: SERVICE_MONEY, message: "Simulators count money as their platform does (the platform's own rules in sandbox/), never with our money or price code." },
      TEST_HELPERS,
    ),
  },
  {
    files: ['domain/**/*.ts', 'integrations/**/*.ts', 'security/**/*.ts', 'config/**/*.ts', 'prisma/**/*.ts', 'web/**/*.ts', 'web/**/*.tsx'],
    ignores: testFiles,
    rules: restrict(TEST_HELPERS),
  },
  {
    // The worker process (worker/): wires every workflow (bundled) and every activity group to their clients and task
    // queues. It sits above activities/ and workflows/, beside api/, and the two never import each other.
    files: ['worker/**/*.ts'],
    ignores: testFiles,
    rules: restrict(
      { group: ['**/api/**'], message: 'The worker and the API share code through model/, never each other.' },
      TEST_HELPERS,
    ),
  },
  {
    // Scripts (npm start, the benches, migration-diff) run outside the tests: what they share with the harness (the
    // service stack, the throwaway PostgreSQL, the seeds) lives in scripts/lib/, and test/harness imports it from there.
    files: ['scripts/**/*.ts'],
    ignores: testFiles,
    rules: restrict(TEST_HELPERS),
  },
);
