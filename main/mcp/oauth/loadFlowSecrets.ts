import { open } from 'node:fs/promises';
import type { OAuthSettings, OAuthStepKind } from '../../../shared/oauth';
import type { FlowSecrets } from './McpOAuthProvider';
import { OAuthFlowError } from './OAuthFlowError';
import type { OAuthStore } from './OAuthStore';

/** A token file larger than this is not a JWT (projected service account tokens are ~1 KB). */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/**
 * The secrets one authorization flow of `server` needs, read when it starts: from the secret
 * store, or (workload identity and enterprise ID tokens) from the file the settings name, read
 * afresh each time since such tokens are short-lived and rotated by whoever writes the file.
 */
export async function loadFlowSecrets(store: OAuthStore, server: string, settings: OAuthSettings): Promise<FlowSecrets> {
  const secrets: FlowSecrets = {};
  if (settings.clientId && settings.hasClientSecret) secrets.clientSecret = await store.clientSecret(server);
  if (settings.hasPrivateKey) secrets.privateKey = await store.secret(server, 'private-key');
  if (settings.grant === 'jwt_bearer') {
    secrets.assertion = settings.assertionFile ? await readTokenFile(settings.assertionFile, 'jwt-bearer', 'workload identity token') : settings.hasAssertion ? await store.secret(server, 'assertion') : undefined;
  }
  if (settings.grant === 'enterprise_managed' && settings.idp) {
    const { idp } = settings;
    secrets.idToken = idp.idTokenFile ? await readTokenFile(idp.idTokenFile, 'token-exchange', 'ID token') : idp.hasIdToken ? await store.secret(server, 'id-token') : undefined;
    if (idp.hasClientSecret) secrets.idpClientSecret = await store.secret(server, 'idp-client-secret');
  }
  return secrets;
}

async function readTokenFile(path: string, step: OAuthStepKind, what: string): Promise<string> {
  let text: string;
  try {
    const file = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_TOKEN_FILE_BYTES) throw new Error(`larger than ${MAX_TOKEN_FILE_BYTES / 1024} KB, not a token`);
      text = buffer.subarray(0, bytesRead).toString('utf8').trim();
    } finally {
      await file.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message;
    throw OAuthFlowError.atStep(step, `cannot read the ${what} file ${path}: ${reason}`);
  }
  if (!text) throw OAuthFlowError.atStep(step, `the ${what} file ${path} is empty`);
  return text;
}
