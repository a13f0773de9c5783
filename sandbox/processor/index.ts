export { createProcessorSimulator, type ProcessorSimulator, type ProcessorSimulatorOptions } from './simulator.js';
export { DEFAULT_API_KEY, DEFAULT_BUSINESS_ID, PLATFORM_API_KEY, PLATFORM_BUSINESS_ID, TEST_CARDS } from './state.js';
