import { runLoad } from '../lib/load.js';
import { cycle, type Scenario } from '../lib/scenario.js';

export const gatewayAuthOneKey: Scenario = {
  name: 'gateway-auth-1-key',
  description: 'the full pipeline with one API key (its verification cached after the first request)',
  expectStatuses: [200],
  run: ({ full, oneKey, settings }) => runLoad({ url: `${full.url}/v1/pets`, settings, headers: { authorization: `Bearer ${oneKey}` } }),
  proxy: ({ full }) => full,
};

export const gatewayAuthManyKeysCold: Scenario = {
  name: 'gateway-auth-10k-keys-cold',
  description: 'the full pipeline, many distinct keys (10,000; 300 in --quick) each sent once to a fresh gateway: every request verifies a signature',
  expectStatuses: [200],
  run: ({ fullCold, manyKeys, settings }) => runLoad({ url: `${fullCold.url}/v1/pets`, settings, amount: manyKeys.length, authorization: cycle(manyKeys) }),
  proxy: ({ fullCold }) => fullCold,
};

export const gatewayAuthManyKeysWarm: Scenario = {
  name: 'gateway-auth-10k-keys-warm',
  description: 'the same keys again, round robin, once the gateway has seen each: the warm key cache',
  expectStatuses: [200],
  run: ({ fullCold, manyKeys, settings }) => runLoad({ url: `${fullCold.url}/v1/pets`, settings, authorization: cycle(manyKeys) }),
  proxy: ({ fullCold }) => fullCold,
};
