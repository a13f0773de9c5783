// Paid plans for test merchants, shared with the benchmarks (scripts never import test/).
export { givePaidPlan, TEST_PAID_PLAN } from '../../scripts/lib/stack/billing.js';
