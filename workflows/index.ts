// The barrel the worker bundles: every workflow of the service.
export { refreshFxRatesWorkflow } from './fx-rates.js';
