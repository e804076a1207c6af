import type { AvailableClusterSchemas } from '../../../../../shared/kubeApi';

type SchemaObject = Record<string, unknown>;

export interface WorkspaceKind {
  kind: string;
  apiVersion?: string;
}

export interface DocumentSchemaWithCluster {
  schema: SchemaObject;
  /** The cluster kinds it added (those the workspace does not describe itself). */
  added: number;
}

/**
 * The workspace document schema, plus one `if apiVersion+kind then <kind's schema>` per cluster
 * kind, as the workspace schema does per workspace kind. The workspace schema picks its kinds by
 * `kind` alone, so a kind it describes stays its own (LanguageTool is validated by the workspace
 * rules, not twice); the apiVersion and kind enums grow by the cluster's, so completion offers them.
 */
export function withClusterKinds(document: SchemaObject, workspaceKinds: readonly WorkspaceKind[], cluster: AvailableClusterSchemas): DocumentSchemaWithCluster {
  const own = new Set(workspaceKinds.map((k) => k.kind));
  const kinds = cluster.kinds.filter((k) => !own.has(k.kind));
  const properties = (document.properties ?? {}) as Record<string, SchemaObject>;
  return {
    added: kinds.length,
    schema: {
      ...document,
      properties: {
        ...properties,
        apiVersion: widenEnum(properties.apiVersion, kinds.map((k) => k.apiVersion)),
        kind: widenEnum(properties.kind, kinds.map((k) => k.kind)),
      },
      allOf: [
        ...((document.allOf as unknown[] | undefined) ?? []),
        ...kinds.map((k) => ({
          if: { properties: { apiVersion: { const: k.apiVersion }, kind: { const: k.kind } }, required: ['apiVersion', 'kind'] },
          // The title heads the hover of every field below that has none of its own.
          then: { title: `${k.kind} (${k.apiVersion}) of cluster ${cluster.context}`, allOf: [{ $ref: `#/definitions/${k.definition.replace(/~/g, '~0').replace(/\//g, '~1')}` }] },
        })),
      ],
      definitions: { ...cluster.definitions, ...((document.definitions as SchemaObject | undefined) ?? {}) },
    },
  };
}

function widenEnum(property: SchemaObject | undefined, values: string[]): SchemaObject | undefined {
  if (!property || !Array.isArray(property.enum)) return property;
  return { ...property, enum: [...new Set([...(property.enum as unknown[]), ...values])] };
}
