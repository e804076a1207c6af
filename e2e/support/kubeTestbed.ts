import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { binaryPath } from '../kube-testbed/testbed.mjs';

function hasGo(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why the kube-apiserver test bed cannot run here (no cached binary and no go to build it), or undefined when it can. */
export function kubeTestbedSkipReason(): string | undefined {
  return !existsSync(binaryPath()) && !hasGo() ? 'the kube-testbed binary is not cached and go is not installed to build it' : undefined;
}
