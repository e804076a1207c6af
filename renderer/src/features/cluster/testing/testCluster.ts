import type { AvailableClusterSchemas } from '../../../../../shared/kubeApi';

/** A cluster with Deployment, and a LanguageTool CRD stricter than the workspace's own rules. */
export const testCluster: AvailableClusterSchemas = {
  available: true,
  context: 'kube-testbed',
  server: 'https://127.0.0.1:6443',
  revision: 'r1',
  groupVersions: ['apps/v1', 'langop.io/v1alpha1'],
  kinds: [
    { apiVersion: 'apps/v1', kind: 'Deployment', definition: 'io.k8s.api.apps.v1.Deployment' },
    { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', definition: 'io.langop.v1alpha1.LanguageTool' },
  ],
  definitions: {
    'io.k8s.api.apps.v1.Deployment': {
      type: 'object',
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: { allOf: [{ $ref: '#/definitions/io.k8s.api.apps.v1.DeploymentSpec' }] } },
      additionalProperties: false,
    },
    'io.k8s.api.apps.v1.DeploymentSpec': { type: 'object', properties: { replicas: { type: 'integer', format: 'int32' } }, additionalProperties: false },
    'io.langop.v1alpha1.LanguageTool': { type: 'object', required: ['status'] },
  },
};
