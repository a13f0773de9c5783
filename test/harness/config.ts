// The test configuration, shared with the benchmarks (scripts never import test/).
export { testConfig } from '../../scripts/lib/stack/config.js';
