import { runLoad } from '../lib/load.js';
import type { Scenario } from '../lib/scenario.js';

export const coreDirect: Scenario = {
  name: 'core-direct',
  description: 'the pets core without a gateway: the ceiling (GET /v1/pets, 20 pets)',
  expectStatuses: [200],
  run: ({ core, settings }) => runLoad({ url: `${core.url}/v1/pets`, settings }),
};
