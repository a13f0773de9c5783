// When the processor can take payments. Pure: the API (status, setup verification), the checkout and the
// onboarding wizard all ask the same question with the same rule.

/** What the readiness rule looks at; a ProcessorConnection row fits as it is. */
export interface ProcessorReadinessInput {
  status: 'CONNECTING' | 'CONNECTED' | 'FAILED';
  businessId: string | null;
  productId: string | null;
  /** The sealed webhook signing secret (its presence is what matters here). */
  webhookSecretEnc: string | null;
}

/**
 * Ready only when the Business ID, the Product ID and the webhook secret are all present (the API key alone
 * is not enough: without the secret no payment webhook can be trusted), on a connection that finished.
 */
export function isProcessorReady(connection: ProcessorReadinessInput | null | undefined): boolean {
  if (!connection || connection.status !== 'CONNECTED') return false;
  return [connection.businessId, connection.productId, connection.webhookSecretEnc].every((part) => typeof part === 'string' && part.trim() !== '');
}
