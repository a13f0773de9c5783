export { API_PREFIX, createProcessorSimulator, type ProcessorSimulator, type ProcessorSimulatorOptions } from './simulator.js';
export { DEFAULT_API_KEY, DEFAULT_COMPANY_ID, PLATFORM_API_KEY, PLATFORM_COMPANY_ID, TEST_CARDS } from './store.js';
export { eventPayload, standardSignature, type EventPayload } from './webhooks.js';
