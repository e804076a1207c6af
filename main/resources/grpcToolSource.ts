import { parseGrpcAddress } from '../../shared/grpc';
import type { WorkspaceGrpcSource } from '../grpc/GrpcSources';
import type { OrlojToolObject } from './kinds/normalizeOrlojTool';

/**
 * The gRPC source an Orloj Tool of type grpc declares: named after the Tool, dialled at its
 * `endpoint` (host:port in plaintext; `grpcs://host:port` for TLS with the system's roots), its risk,
 * classes and runtime applied to every tool the server lists. `auth` names the metadata calls carry:
 * bearer → `authorization: Bearer <token>`, api_key_header → `<headerName>: <key>`; the value is set
 * in the gRPC section and kept in the secret store, never in the file, bound to the endpoint it was
 * set for: a Tool that keeps its name but moves to another host:port, or from grpcs:// to plaintext,
 * loses it (GrpcSources drops it before any call) and it has to be set again.
 */
export function grpcToolSource(tool: OrlojToolObject): { source: WorkspaceGrpcSource } | { problem: string } {
  const { spec, metadata } = tool;
  const endpoint = spec.endpoint?.trim();
  if (!endpoint) return { problem: 'endpoint (host:port) is required for a grpc Tool' };
  const tls = endpoint.startsWith('grpcs://');
  const address = endpoint.replace(/^grpcs?:\/\//, '');
  if (!parseGrpcAddress(address)) return { problem: `endpoint "${endpoint}" is not host:port (or grpcs://host:port for TLS)` };
  const source: WorkspaceGrpcSource = {
    name: metadata.name,
    address,
    tls: { mode: tls ? 'tls' : 'plaintext' },
    config: { risk_level: spec.risk_level, operation_classes: spec.operation_classes, runtime: spec.runtime },
  };
  const profile = spec.auth?.profile;
  if (profile === 'bearer') Object.assign(source, { requiredMetadata: ['authorization'], metadataPrefix: { authorization: 'Bearer ' } });
  else if (profile === 'api_key_header' && spec.auth?.headerName) source.requiredMetadata = [spec.auth.headerName.toLowerCase()];
  else if (profile) return { problem: `auth profile ${profile} is not supported for grpc tools by the local target; use bearer or api_key_header` };
  return { source };
}
