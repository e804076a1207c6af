import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { LanguageToolSpec } from '../../shared/kube';
import { crdManifests } from './crds';

const crdDir = join(import.meta.dirname, '../../resources/crds');

describe('CRD manifests', () => {
  it('ships resources/crds/*.yaml with exactly the CRDs the reconciler applies', () => {
    const shipped = readdirSync(crdDir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => parse(readFileSync(join(crdDir, f), 'utf8')));
    const applied = crdManifests().sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    expect(shipped).toEqual(JSON.parse(JSON.stringify(applied)));
  });

  it('defaults a LanguageTool the same way in the CRD and in the contract', () => {
    const spec = crdManifests()[0]!.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!;
    const parsed = LanguageToolSpec.parse({ image: 'x' });
    expect({ port: spec.port!.default, deploymentMode: spec.deploymentMode!.default, type: spec.type!.default }).toEqual({
      port: parsed.port,
      deploymentMode: parsed.deploymentMode,
      type: parsed.type,
    });
  });
});
