// Checkout sessions in bulk, shared with `npm run bench -- stats` (scripts never import test/).
export { seedCheckoutSessions } from '../../scripts/lib/stack/stats-seed.js';
