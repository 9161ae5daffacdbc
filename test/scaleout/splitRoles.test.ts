import { expect } from 'chai';
import { splitRolesScenario } from '../support/splitRoles.js';
import { startScaleoutNode } from './support.js';

/**
 * The split deployment on the scale-out profile: every process a client of the same EventStoreDB node
 * (the test double, in this process) and of the stores of `scaleoutStores()`.
 */
splitRolesScenario('scale-out profile', async () => {
  const esdb = await startScaleoutNode();
  return {
    env: esdb.env,
    streamTypes: async (stream) => esdb.node.log.stream(stream)!.map((e) => e.type),
    // every process wrote through BatchAppend to the one node
    finally: () => expect(esdb.node.calls.append).to.equal(undefined),
    close: () => esdb.close(),
  };
});
