import { describe, expect, it } from 'vitest';
import { defaultReplicaName, parseReplicaName } from './replicaName';

describe('the replica name every record carries', () => {
  it("is the pod's name in a cluster (HOSTNAME where Kubernetes runs it), else the host's", () => {
    expect(defaultReplicaName({ KUBERNETES_SERVICE_HOST: '10.96.0.1', HOSTNAME: 'tooldeck-gateway-7d9f8-x2kqp' }, () => 'node-1')).toBe('tooldeck-gateway-7d9f8-x2kqp');
    expect(defaultReplicaName({ HOSTNAME: 'from-a-shell' }, () => 'laptop.local')).toBe('laptop.local');
  });

  it('turns what a record cannot carry into dashes, and never is empty', () => {
    expect(defaultReplicaName({}, () => 'Ana’s MacBook Pro')).toBe('Ana-s-MacBook-Pro');
    expect(defaultReplicaName({}, () => '')).toBe('tooldeck');
    expect(defaultReplicaName({}, () => '---')).toBe('tooldeck');
  });

  it('--replica-name is checked, one sentence when it cannot be one', () => {
    expect(parseReplicaName('gw-1.eu_west')).toBe('gw-1.eu_west');
    expect(() => parseReplicaName('gw 1')).toThrow('A replica name is 1 to 253 letters, digits, dots, dashes and underscores, starting with a letter or digit.');
    expect(() => parseReplicaName('-gw')).toThrow(/^A replica name is/);
  });
});
