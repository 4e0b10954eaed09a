/** The gateway calls nothing its operator did not configure: @apollo/gateway's usage telemetry is off. */
import fs from 'node:fs';
import { createGateway, SUPERGRAPH_FILE } from '../../../gateway/gateway.js';

const options = { supergraphSdl: fs.readFileSync(SUPERGRAPH_FILE, 'utf8'), subgraphUrls: {}, subgraphTimeoutMs: 1000, exposeQueryPlans: false };

it('turns off @apollo/gateway usage reporting (APOLLO_TELEMETRY_DISABLED) unless the operator set it', () => {
  const before = process.env.APOLLO_TELEMETRY_DISABLED;
  try {
    delete process.env.APOLLO_TELEMETRY_DISABLED;
    createGateway(options);
    expect(process.env.APOLLO_TELEMETRY_DISABLED).toBe('true');
    // The operator's own setting stays (here another spelling of "off", so no telemetry starts).
    process.env.APOLLO_TELEMETRY_DISABLED = '1';
    createGateway(options);
    expect(process.env.APOLLO_TELEMETRY_DISABLED).toBe('1');
  } finally {
    if (before === undefined) delete process.env.APOLLO_TELEMETRY_DISABLED;
    else process.env.APOLLO_TELEMETRY_DISABLED = before;
  }
});
