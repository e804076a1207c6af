import { CLAW_DESCRIPTOR_FILE } from '../../../../shared/resources/clawDescriptor';
import { CLAW_POD_FILE } from '../../../../shared/resources/clawPod';
import { EVAL_SUITE_FILE } from '../../../../shared/evals';

export interface FileSchemas {
  document: unknown;
  descriptor: unknown;
  pod: unknown;
  evalSuite?: unknown;
}

/** Files are told apart by name, as the backend does: descriptors, pod files, eval suites (`evals/*.yml`), and resource YAML. */
export function schemaForFile(path: string, schemas: FileSchemas | undefined): unknown {
  const name = path.split('/').pop() ?? path;
  if (CLAW_DESCRIPTOR_FILE.test(name)) return schemas?.descriptor;
  if (CLAW_POD_FILE.test(name)) return schemas?.pod;
  if (EVAL_SUITE_FILE.test(path)) return schemas?.evalSuite;
  return schemas?.document;
}
