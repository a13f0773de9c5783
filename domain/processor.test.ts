import { describe, expect, it } from 'vitest';
import { isProcessorReady, type ProcessorReadinessInput } from './processor.js';

const complete: ProcessorReadinessInput = { status: 'CONNECTED', businessId: 'biz_1', productId: 'prod_1', webhookSecretEnc: 'v1.a.b.c' };

describe('processor readiness', () => {
  it('given a finished connection with business, product and webhook secret / it is ready', () => {
    expect(isProcessorReady(complete)).toBe(true);
  });

  it('given no connection at all / it is not ready', () => {
    expect(isProcessorReady(null)).toBe(false);
    expect(isProcessorReady(undefined)).toBe(false);
  });

  it('given only the API key (nothing obtained from the processor yet) / it is not ready', () => {
    expect(isProcessorReady({ status: 'CONNECTED', businessId: null, productId: null, webhookSecretEnc: null })).toBe(false);
  });

  it.each(['businessId', 'productId', 'webhookSecretEnc'] as const)('given everything but %s / it is not ready', (missing) => {
    expect(isProcessorReady({ ...complete, [missing]: null })).toBe(false);
    expect(isProcessorReady({ ...complete, [missing]: '  ' })).toBe(false);
  });

  it.each(['CONNECTING', 'FAILED'] as const)('given all three parts on a %s connection / it is not ready', (status) => {
    expect(isProcessorReady({ ...complete, status })).toBe(false);
  });
});
