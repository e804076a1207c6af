/**
 * Histogram bucket upper bounds (ms) for tool calls: stdio tools answer in well under a millisecond,
 * HTTP tools in milliseconds, agents and long-running tools in seconds to minutes.
 */
export const TOOL_LATENCY_BOUNDARIES_MS: readonly number[] = [
  0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000,
];
