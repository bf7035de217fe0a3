import { throughput, type ThroughputScenario } from './throughput.js';

export const CORE_DIRECT: ThroughputScenario = {
  name: 'core-direct',
  description: 'the pets core without a gateway: the ceiling (GET /v1/pets, 20 pets)',
  service: ({ core }) => core,
  key: 'none',
  noProxy: true,
};
export const coreDirect = throughput(CORE_DIRECT);
