// The harness's time-skipping server under a busy machine: a registration whose answer was lost and retried.
import { describe, expect, it } from 'vitest';
import { addOurSearchAttributes, startTimeSkipping } from './temporal.js';

describe('the time-skipping test server', () => {
  it('given our search attributes already registered (a retried call whose first answer was lost) / registering again succeeds', async () => {
    const ts = await startTimeSkipping();
    try {
      await expect(addOurSearchAttributes(ts.env)).resolves.toBeUndefined();
    } finally {
      await ts.close();
    }
  });
});
