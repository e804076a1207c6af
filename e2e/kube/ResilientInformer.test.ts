import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectKube, type KubeConnection } from '../../main/kube/KubeConnection';
import { ResilientInformer } from '../../main/kube/ResilientInformer';
import { silentLogger } from '../../main/platform/Logger';
import { startTestbed, type Testbed } from '../kube-testbed/testbed.mjs';
import { createNamespace } from './clusterFixtures';

describe('ResilientInformer against a real kube-apiserver', { timeout: 60_000 }, () => {
  let testbed: Testbed;
  let admin: KubeConnection;

  beforeAll(async () => {
    testbed = await startTestbed({ stderr: 'ignore', buildLog: () => {} });
    admin = connectKube({ kubeconfig: testbed.kubeconfigPath });
    await createNamespace(admin.rest, 'paged');
    for (let i = 0; i < 7; i++) {
      await admin.rest.request('POST', '/api/v1/namespaces/paged/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i) } } });
    }
  }, 600_000);

  afterAll(async () => {
    admin?.close();
    await testbed?.stop();
  });

  it('lists every page of a collection larger than one page (follows the continue token), and reports each object once', async () => {
    const added: string[] = [];
    const informer = new ResilientInformer<{ metadata: { name: string } }>({
      kc: admin.kc,
      rest: admin.rest,
      path: '/api/v1/namespaces/paged/configmaps',
      logger: silentLogger,
      pageSize: 3,
      onEvent: (event, obj) => event === 'add' && added.push(obj.metadata.name),
    });
    try {
      await informer.start();
      const names = Array.from({ length: 7 }, (_, i) => `cm-${i}`);
      expect(informer.list().map((cm) => cm.metadata.name).sort()).toEqual(expect.arrayContaining(names));
      expect(added.filter((n) => n.startsWith('cm-')).sort()).toEqual(names);
    } finally {
      await informer.stop();
    }
  });
});
