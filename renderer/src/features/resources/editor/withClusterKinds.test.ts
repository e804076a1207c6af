import { describe, expect, it } from 'vitest';
import { RESOURCE_KINDS, workspaceDocumentSchema } from '../../../../../shared/resources/kinds';
import { schemaProblems } from '../../../components/jsonSchema';
import { testCluster } from '../../cluster/testing/testCluster';
import { withClusterKinds } from './withClusterKinds';

const kinds = RESOURCE_KINDS.map(({ kind, apiVersion }) => ({ kind, apiVersion }));

function problems(schema: object, manifest: object): string[] {
  return schemaProblems(schema as Record<string, unknown>, manifest)
    .filter((p) => p.keyword !== 'if')
    .map((p) => `${p.path} ${p.message}`);
}

const deployment = (replicas: unknown) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas } });
const languageTool = { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name: 'weather' }, spec: { image: 'ghcr.io/example/weather:1' } };
const mcpServer = (transport: string) => ({ apiVersion: 'orloj.dev/v1', kind: 'McpServer', metadata: { name: 'everything' }, spec: { transport, command: 'npx' } });

describe('withClusterKinds', () => {
  it("checks a cluster kind's document against the cluster's schema", () => {
    const { schema } = withClusterKinds(workspaceDocumentSchema as Record<string, unknown>, kinds, testCluster);
    expect(problems(schema, deployment('two'))).toEqual(['/spec/replicas must be integer']);
    expect(problems(schema, deployment(2))).toEqual([]);
    expect(problems(workspaceDocumentSchema, deployment(2))).not.toEqual([]);
  });

  it('keeps the workspace rules for the workspace kinds, even where the cluster serves the same kind', () => {
    const { schema, added } = withClusterKinds(workspaceDocumentSchema as Record<string, unknown>, kinds, testCluster);
    expect(added).toBe(1);
    expect(problems(schema, languageTool)).toEqual([]);
    expect(problems(schema, mcpServer('stdio'))).toEqual([]);
    expect(problems(schema, mcpServer('carrier-pigeon'))).toEqual(problems(workspaceDocumentSchema, mcpServer('carrier-pigeon')));
    expect(problems(schema, mcpServer('carrier-pigeon'))).not.toEqual([]);
  });

  it('offers the cluster kinds and apiVersions beside the workspace ones', () => {
    const { schema } = withClusterKinds(workspaceDocumentSchema as Record<string, unknown>, kinds, testCluster);
    const properties = schema.properties as Record<string, { enum: string[] }>;
    expect(properties.kind!.enum).toEqual(expect.arrayContaining(['McpServer', 'LanguageTool', 'Deployment']));
    expect(properties.apiVersion!.enum).toEqual(expect.arrayContaining(['orloj.dev/v1', 'langop.io/v1alpha1', 'apps/v1']));
    expect(new Set(properties.kind!.enum).size).toBe(properties.kind!.enum.length);
  });
});
