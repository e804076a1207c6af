/**
 * Chart colours and axis styling as Mantine CSS variables, so charts follow the light or dark
 * scheme without re-rendering (SVG presentation attributes accept var()).
 */
export const SERIES_COLOR = {
  p50: 'var(--mantine-color-teal-6)',
  p95: 'var(--mantine-color-violet-5)',
  p99: 'var(--mantine-color-orange-6)',
  ok: 'var(--mantine-color-indigo-5)',
  errors: 'var(--mantine-color-red-6)',
  errorRate: 'var(--mantine-color-red-6)',
  histogram: 'var(--mantine-color-cyan-6)',
} as const;

export const GRID_STROKE = 'var(--mantine-color-default-border)';

export const AXIS_PROPS = {
  stroke: 'var(--mantine-color-default-border)',
  tick: { fill: 'var(--mantine-color-dimmed)', fontSize: 11 },
  tickLine: false,
} as const;

export const CURSOR_FILL = 'var(--mantine-color-default-hover)';
