/** tRPC input errors carry zod issues as JSON in the message; show them as "field: problem". */
export function readableError(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  try {
    const issues = JSON.parse(message) as Array<{ path: PropertyKey[]; message: string }>;
    if (Array.isArray(issues)) return issues.map((i) => `${i.path.filter((p) => p !== 'config').join('.') || 'input'}: ${i.message}`).join('\n');
  } catch {
    // Not JSON: a plain message.
  }
  return message;
}
