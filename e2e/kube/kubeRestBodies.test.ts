import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isKubeApiError } from '../../main/kube/KubeApiError';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';

/**
 * Request bodies reach the API server whole, whatever the verb: a DELETE's DeleteOptions sent
 * chunked was left unread on the keep-alive connection (its preconditions ignored) and the next
 * request on that connection was answered 400 Bad Request.
 */
describe('KubeRest request bodies on the kube-apiserver test bed', { timeout: 120_000 }, () => {
  let testbed: Testbed;
  let kube: KubeConnection;

  beforeAll(async () => {
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    kube = connectKube({ kubeconfig: testbed.kubeconfigPath });
  }, 600_000);

  afterAll(async () => {
    kube?.close();
    await testbed?.stop();
  });

  it("a DELETE's preconditions are honoured and the next request on the connection is answered", async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    await kube.rest.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' }, data: { a: '1' } } });
    const refused = await kube.rest
      .request('DELETE', `${path}/kept`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: '00000000-0000-0000-0000-000000000000' } } })
      .catch((error: unknown) => error);
    expect(isKubeApiError(refused) && refused.status).toBe(409);
    for (let i = 0; i < 5; i++) await expect(kube.rest.request('GET', `${path}/kept`)).resolves.toMatchObject({ data: { a: '1' } });
  });
});
