import { z } from 'zod';
import { OperationClass } from '../registry';
import { stringListSchema, type JsonSchema } from './jsonSchema';
import { orlojObjectSchema } from './meta';

export const PermissionVerdict = z.enum(['allow', 'deny', 'approval_required']);
export type PermissionVerdict = z.infer<typeof PermissionVerdict>;
export const MatchMode = z.enum(['all', 'any']);
export const ApplyMode = z.enum(['global', 'scoped']);

export const OperationRule = z.object({ operation_class: z.union([OperationClass, z.literal('*')]), verdict: PermissionVerdict });
export type OperationRule = z.infer<typeof OperationRule>;

/** An Orloj `ToolPermission` spec as stored, defaults applied. */
export const ToolPermissionSpec = z.object({
  tool_ref: z.string(),
  action: z.string(),
  required_permissions: z.array(z.string()).optional(),
  match_mode: MatchMode,
  apply_mode: ApplyMode,
  target_agents: z.array(z.string()).optional(),
  operation_rules: z.array(OperationRule).optional(),
});
export type ToolPermissionSpec = z.infer<typeof ToolPermissionSpec>;

export const toolPermissionSpecSchema: JsonSchema = {
  type: 'object',
  properties: {
    tool_ref: { type: 'string', description: 'The Tool it governs (e.g. everything--echo), a registry name (mcp:everything.echo) or a prefix ending in *. Defaults to metadata.name.' },
    action: { type: 'string', default: 'invoke' },
    required_permissions: stringListSchema('Trimmed and deduplicated.'),
    match_mode: { type: 'string', enum: MatchMode.options, default: 'all' },
    apply_mode: { type: 'string', enum: ApplyMode.options, default: 'global' },
    target_agents: stringListSchema('Required when apply_mode is scoped.'),
    operation_rules: {
      type: 'array',
      description: 'Verdict per operation class; the strictest matching verdict wins (deny > approval_required > allow).',
      items: {
        type: 'object',
        properties: {
          operation_class: { type: 'string', enum: [...OperationClass.options, '*'], default: '*' },
          verdict: { type: 'string', enum: PermissionVerdict.options, default: 'allow' },
        },
      },
    },
  },
  allOf: [{ if: { properties: { apply_mode: { const: 'scoped' } }, required: ['apply_mode'] }, then: { required: ['target_agents'] } }],
};

export const toolPermissionSchema: JsonSchema = orlojObjectSchema('ToolPermission', 'An Orloj ToolPermission: verdicts per operation class for the tools it covers.', toolPermissionSpecSchema);
