import { McpTool } from '../../shared/mcp';

export interface AcceptedTools {
  /** The tools that can be used, each name once (the first definition a server listed). */
  tools: McpTool[];
  /** What was left out and why, for the server's problems (UI badge, CLI warning). */
  problems: string[];
}

/**
 * Reads a server's tools/list entries one by one, so one bad tool costs only itself: an entry that
 * is not a valid tool (an inputSchema that is not an object schema with `type: "object"`, as the
 * spec requires; a missing name) is left out with the reason, and a name listed twice keeps its
 * first definition — calls would otherwise be ambiguous, and the registry refuses two entries of
 * one name.
 */
export function acceptToolList(entries: readonly unknown[]): AcceptedTools {
  const tools: McpTool[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  entries.forEach((entry, index) => {
    const parsed = McpTool.safeParse(entry);
    const name = typeof (entry as { name?: unknown } | null)?.name === 'string' ? (entry as { name: string }).name : undefined;
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.join('.') || 'the definition'}: ${issue.message}` : 'not a tool definition';
      problems.push(`${name === undefined ? `Tool #${index + 1}` : `Tool "${name}"`} is unusable (${where}); the other tools work.`);
      return;
    }
    const tool = parsed.data;
    const count = seen.get(tool.name) ?? 0;
    seen.set(tool.name, count + 1);
    if (count === 0) tools.push(tool);
    else if (count === 1) problems.push(`Tool "${tool.name}" is listed more than once; the first definition is used.`);
  });
  return { tools, problems };
}
