// The whole service on loopback, shared with the benchmarks (scripts never import test/).
export {
  connectTemporal,
  quietRuntime,
  startServiceStack,
  uniqueTaskQueue,
  type ServiceStack,
  type ServiceStackOptions,
  type TemporalHandles,
} from '../../scripts/lib/stack/service-stack.js';
