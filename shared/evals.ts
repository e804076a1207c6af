import { z } from 'zod';
import type { JsonSchema } from './resources/jsonSchema';

/**
 * Eval suites: YAML files in the workspace's `evals/` folder that say which tool a model should
 * pick for a prompt, run by `tooldeck eval` and the Evals view through the mediation engine.
 * The matchers follow MCPJam's eval SDK (order, argument matching, type checks, extra calls).
 */

/** Workspace files under `evals/` ending in `.yml` or `.yaml` are eval suites. */
export const EVAL_SUITE_FILE = /^evals\/(?:[^/]+\/)*[^/]+\.ya?ml$/;

/** In partial argument matching, these strings check a value's type instead of its value. */
export const TYPE_CHECKS = ['string', 'number', 'any'] as const;

export const EvalToolOrder = z.enum(['ignore', 'strict', 'superset']).describe(
  'ignore: every expected call, in any order, and no other call (unless maxExtraToolCalls allows); strict: the expected calls in this order, and no other call (unless maxExtraToolCalls allows); superset: every expected call, in any order, other calls allowed (unless maxExtraToolCalls limits them).',
);
export type EvalToolOrder = z.infer<typeof EvalToolOrder>;

export const EvalArgumentMatching = z.enum(['partial', 'exact', 'ignore']).describe(
  'partial: the keys given must match (the strings "string", "number" and "any" check the type or presence only), other keys may be there; exact: the arguments must equal those given; ignore: arguments are not checked.',
);
export type EvalArgumentMatching = z.infer<typeof EvalArgumentMatching>;

export const ExpectedToolCall = z
  .object({
    tool: z.string().trim().min(1).describe('The tool: its registry name (mcp:everything.echo), <source>.<tool>, the name the model sees (everything_echo) or the bare tool name (echo).'),
    arguments: z.record(z.string(), z.unknown()).optional().describe('The arguments expected; left out, arguments are not checked for this call.'),
  })
  .strict();
export type ExpectedToolCall = z.infer<typeof ExpectedToolCall>;

export const EvalExpectation = z
  .object({
    toolCalls: z.array(ExpectedToolCall).default([]).describe('The calls the model should make; empty: it should call no tool.'),
    order: EvalToolOrder.default('ignore'),
    argumentMatching: EvalArgumentMatching.default('partial'),
    maxExtraToolCalls: z.number().int().min(0).optional().describe('How many calls beyond the expected ones pass (default: 0 for ignore and strict, any number for superset).'),
    finalAnswerContains: z.union([z.string(), z.array(z.string())]).optional().describe('Text (or texts) the final answer must contain (case-sensitive).'),
  })
  .strict();
export type EvalExpectation = z.infer<typeof EvalExpectation>;

export const EvalMessage = z
  .object({
    role: z.enum(['system', 'user', 'assistant']),
    content: z.string(),
  })
  .strict();
export type EvalMessage = z.infer<typeof EvalMessage>;

export const EvalCase = z
  .object({
    name: z.string().trim().min(1).max(200),
    prompt: z.string().min(1).optional().describe('The user message; or give messages.'),
    messages: z.array(EvalMessage).min(1).optional().describe('The conversation up to the turn evaluated; or give prompt.'),
    iterations: z.number().int().min(1).max(100).optional().describe("Runs per model (default: the suite's iterations)."),
    expect: EvalExpectation,
  })
  .strict()
  .refine((item) => (item.prompt === undefined) !== (item.messages === undefined), { message: 'give either prompt or messages (one of them)' });
export type EvalCase = z.infer<typeof EvalCase>;

export const EvalSuite = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().optional(),
    agent: z.string().trim().min(1).max(200).optional().describe('The tool set: this agent’s grants (its Clawdapus pod file, ToolPermissions or LanguageAgent), as the gateway offers them.'),
    tools: z.array(z.string().min(1)).min(1).optional().describe('Or hand-picked registry entries (mcp:everything.echo, …); with agent, these replace its grants.'),
    system: z.string().optional().describe('A system prompt for every case.'),
    iterations: z.number().int().min(1).max(100).default(1).describe('Runs of each case per model (a model is not deterministic).'),
    cases: z.array(EvalCase).min(1),
  })
  .strict()
  .refine((suite) => suite.agent !== undefined || suite.tools !== undefined, { message: 'name the tool set: agent (its grants) or tools (registry entries)' })
  .refine((suite) => new Set(suite.cases.map((item) => item.name)).size === suite.cases.length, { message: 'case names must be unique' });
export type EvalSuite = z.infer<typeof EvalSuite>;

/** The schema the Resources editor validates and completes `evals/*.yml` with. */
export const evalSuiteSchema: JsonSchema = {
  ...(z.toJSONSchema(EvalSuite, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as JsonSchema),
  $id: 'tooldeck://schemas/eval-suite.json',
  title: 'Tooldeck eval suite',
  description: 'Cases that say which tool a model should call for a prompt, run by `tooldeck eval` and the Evals view.',
};

/** One tool call a model made in a run. */
export const EvalRunCall = z.object({
  /** The registry name of the tool. */
  tool: z.string(),
  /** The name the model saw. */
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  status: z.enum(['ok', 'error']),
  latency_ms: z.number(),
  /** What the tool answered (as the model read it). */
  result: z.string(),
  record_id: z.string().optional(),
});
export type EvalRunCall = z.infer<typeof EvalRunCall>;

export const EvalRun = z.object({
  iteration: z.number().int(),
  passed: z.boolean(),
  /** Why it failed, one sentence each. */
  failures: z.array(z.string()),
  tool_calls: z.array(EvalRunCall),
  tokens: z.object({ prompt: z.number(), completion: z.number() }),
  latency_ms: z.number(),
  rounds: z.number().int(),
  answer: z.string().optional(),
  error: z.string().optional(),
  /** The mediated turn (Sessions view). */
  turn_id: z.string().optional(),
});
export type EvalRun = z.infer<typeof EvalRun>;

export const EvalCaseResult = z.object({
  name: z.string(),
  model: z.string(),
  pass_rate: z.number(),
  /** pass_rate reached the threshold. */
  passed: z.boolean(),
  runs: z.array(EvalRun),
});
export type EvalCaseResult = z.infer<typeof EvalCaseResult>;

export const EvalReport = z.object({
  suite: z.string(),
  agent: z.string().optional(),
  models: z.array(z.string()),
  threshold: z.number(),
  executed: z.boolean(),
  started_at: z.string(),
  duration_ms: z.number(),
  /** Runs passed over runs made, 0–1. */
  accuracy: z.number(),
  cases: z.array(EvalCaseResult),
});
export type EvalReport = z.infer<typeof EvalReport>;
