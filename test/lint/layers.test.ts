// The layering rules of eslint.config.js, proven by probes: each forbidden import is linted as if it were written
// in a real file of the layer (the file's own text with the import added), and must be refused; the allowed
// forms next to it must pass. `npm test` runs ESLint over the tree too; this says the rules bite.
import { describe, expect, it } from 'vitest';
import { eslintProbe } from './eslint-probe.js';

/** The restricted-import messages ESLint reports for `file` with `line` added at its end. */
const restrictions = eslintProbe('@typescript-eslint/no-restricted-imports');

describe('the layering rules', () => {
  it.each([
    ['a route importing an activity', 'api/routes/merchant/domain.ts', "import { createFxRatesActivities } from '../../../activities/fx/fx-rates.js'; void createFxRatesActivities;", /api\/ must not import activities\//],
    ['an activity importing a workflow value', 'activities/email/account-emails.ts', "import { checkoutWorkflow } from '../../workflows/checkout/checkout.js'; void checkoutWorkflow;", /sit below workflows\//],
    ['the model importing a workflow value', 'model/merchant/onboarding.ts', "import { processorEventSignal } from '../../workflows/checkout/checkout.messages.js'; void processorEventSignal;", /sit below workflows\//],
    ['a simulator importing our client', 'sandbox/dns/index.ts', "import { IntegrationError } from '../../integrations/errors.js'; void IntegrationError;", /Simulators import nothing/],
    ['a simulator importing the model', 'sandbox/ecb/index.ts', "import { processorAad } from '../../model/connections.js'; void processorAad;", /Simulators import nothing/],
    ['a simulator importing our money code', 'sandbox/storefront-b/state.ts', "import { minorToDecimalString } from '../../domain/money.js'; void minorToDecimalString;", /Simulators count money as their platform does/],
    ['a simulator importing our discount arithmetic', 'sandbox/storefront-a/orders.ts', "import * as discounts from '../../domain/checkout/discounts.js'; void discounts;", /Simulators count money as their platform does/],
    ['production code importing a test helper', 'model/connections.ts', "import { startPostgres } from '../test/harness/postgres.js'; void startPostgres;", /Test helpers live in test\//],
    ['a script importing a test helper', 'scripts/migration-diff.ts', "import { createTestDatabase } from '../test/harness/db.js'; void createTestDatabase;", /Test helpers live in test\//],
    ['a route importing the worker process', 'api/routes/health/index.ts', "import { createWorker } from '../../../worker/worker.js'; void createWorker;", /api\/ must not import activities\/ or the worker/],
    ['an activity importing the worker process', 'activities/checkout/checkout-payment.ts', "import { WORKFLOWS_PATH } from '../../worker/bundle.js'; void WORKFLOWS_PATH;", /nothing it wires imports it/],
    ['a workflow importing the worker process', 'workflows/checkout/checkout.ts', "import { WORKFLOWS_PATH } from '../../worker/bundle.js'; void WORKFLOWS_PATH;", /must stay deterministic/],
    ['the worker importing a route', 'worker/worker.ts', "import { buildApp } from '../api/app.js'; void buildApp;", /share code through model\/, never each other/],
    ['a route importing an activity in a feature folder', 'api/routes/checkout/payment.ts', "import { createCheckoutPaymentActivities } from '../../../activities/checkout/checkout-payment.js'; void createCheckoutPaymentActivities;", /api\/ must not import activities\//],
    ['an activity importing a workflow type', 'activities/email/account-emails.ts', "import type { SetupVerificationResult } from '../../workflows/merchant/setup-verification.messages.js'; export type Probe = SetupVerificationResult;", /sit below workflows\//],
    ['the model importing a workflow type', 'model/checkout/processor-cues.ts', "import type { statusQuery } from '../../workflows/checkout/checkout.messages.js'; export type Probe = typeof statusQuery;", /sit below workflows\//],
    ['a bench importing a test helper', 'scripts/bench/stack.ts', "import { launchChromium } from '../../test/browser/chromium.js'; void launchChromium;", /Test helpers live in test\//],
  ])('given %s / lint refuses it', async (_what, file, line, message) => {
    const found = await restrictions(file, line);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it('given a workflow importing an activity type, a route importing the model, a bench and the harness importing scripts/lib / lint lets them through', async () => {
    expect(await restrictions('workflows/merchant/setup-verification.ts', "import type { SetupVerificationFacts } from '../../activities/merchant/setup-verification.js'; export type Probe = SetupVerificationFacts;")).toEqual([]);
    expect(await restrictions('api/routes/merchant/domain.ts', "import { sessionLines } from '../../../model/checkout/checkout-session.js'; void sessionLines;")).toEqual([]);
    // What scripts share with the harness lives in scripts/lib/; the harness imports it from there.
    expect(await restrictions('scripts/bench/stack.ts', "import { seedCheckoutSessions } from '../lib/stack/stats-seed.js'; void seedCheckoutSessions;")).toEqual([]);
    expect(await restrictions('test/harness/stack.ts', "import { startSandboxes } from '../../scripts/lib/stack/sandboxes.js'; void startSandboxes;")).toEqual([]);
  });
});
