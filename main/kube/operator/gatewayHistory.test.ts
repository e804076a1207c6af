import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runHelm } from '../../../e2e/helm/helm.mjs';
import { gatewayManifests } from './gatewayManifests';
import type { Manifest } from './operatorManifests';

/**
 * `kube install --gateway --history-postgres-secret NAME`, the Helm chart's
 * gateway.historyPostgresSecret and the kustomize gateway-history component give every gateway
 * replica the same TOOLDECK_HISTORY_URL, from a Secret's `url` key (never a literal URL).
 */
const root = join(import.meta.dirname, '../../..');
const historyEnv = { name: 'TOOLDECK_HISTORY_URL', valueFrom: { secretKeyRef: { name: 'tooldeck-history', key: 'url' } } };

type Deployment = Manifest & { spec: { template: { spec: { containers: { env: unknown[] }[] } } } };
const gatewayDeployment = (objects: Manifest[]) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'tooldeck-gateway') as Deployment;
const envOf = (objects: Manifest[]) => gatewayDeployment(objects).spec.template.spec.containers[0]!.env;

describe('the gateway replicas’ shared history from a Secret', () => {
  it('kube install --history-postgres-secret adds the URL from the Secret; without it, each replica keeps its own file', () => {
    expect(envOf(gatewayManifests({ namespace: 'tooldeck-system', image: 'x', historyPostgresSecret: 'tooldeck-history' }))).toContainEqual(historyEnv);
    expect(JSON.stringify(gatewayManifests({ namespace: 'tooldeck-system', image: 'x' }))).not.toContain('TOOLDECK_HISTORY_URL');
  });

  it('the Helm chart renders the same Deployment with gateway.historyPostgresSecret', { timeout: 300_000 }, async () => {
    const chart = join(root, 'deploy/helm/tooldeck-operator');
    const rendered = parseAllDocuments(
      await runHelm(['template', 'tooldeck-operator', chart, '--namespace', 'tooldeck-system', '--set', 'gateway.enabled=true', '--set', 'gateway.historyPostgresSecret=tooldeck-history', '--set', 'image.tag=1.0.0'], { log: () => {} }),
    )
      .map((d) => d.toJS() as Manifest | null)
      .filter((d): d is Manifest => !!d);
    const expected = gatewayManifests({ namespace: 'tooldeck-system', image: 'tooldeck/operator:1.0.0', historyPostgresSecret: 'tooldeck-history' });
    expect(gatewayDeployment(rendered)).toEqual(JSON.parse(JSON.stringify(gatewayDeployment(expected))));
  });

  it('the kustomize component appends the same variable to the gateway container', () => {
    const component = parse(readFileSync(join(root, 'deploy/kustomize/gateway-history/kustomization.yaml'), 'utf8')) as { kind: string; patches: { target: { name: string }; patch: string }[] };
    expect(component.kind).toBe('Component');
    expect(component.patches[0]!.target.name).toBe('tooldeck-gateway');
    expect(parse(component.patches[0]!.patch)).toEqual([{ op: 'add', path: '/spec/template/spec/containers/0/env/-', value: historyEnv }]);
  });
});
