import { runLoad } from '../lib/load.js';
import type { BenchContext, LoadTarget, Scenario } from '../lib/scenario.js';

const target = ({ core }: BenchContext): LoadTarget => ({ url: `${core.url}/v1/pets` });

export const coreDirect: Scenario = {
  name: 'core-direct',
  description: 'the pets core without a gateway: the ceiling (GET /v1/pets, 20 pets)',
  expectStatuses: [200],
  run: (context) => runLoad({ ...target(context), settings: context.settings }),
  wrk: target,
};
