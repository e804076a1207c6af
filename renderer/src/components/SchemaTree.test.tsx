import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { SchemaTree } from './SchemaTree';

const schema = {
  type: 'object',
  $defs: {
    node: { type: 'object', description: 'A tree node', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['label'] },
  },
  properties: {
    mode: { type: 'string', enum: ['fast', 'safe'], default: 'safe', description: 'How to run' },
    limit: { type: ['integer', 'null'], minimum: 1 },
    root: { $ref: '#/$defs/node' },
  },
  required: ['mode'],
};

describe('SchemaTree', () => {
  it('lists properties with types, required marks, descriptions, enums and defaults', () => {
    render(
      <MantineProvider env="test">
        <SchemaTree schema={schema} label="Input schema" />
      </MantineProvider>,
    );
    const mode = screen.getByText('mode').closest('li')!;
    expect(mode).toHaveTextContent('string');
    expect(mode).toHaveTextContent('How to run');
    expect(mode).toHaveTextContent('one of "fast", "safe"');
    expect(mode).toHaveTextContent('default "safe"');
    expect(mode.querySelector('[aria-label="required"]')).not.toBeNull();
    const limit = screen.getByText('limit').closest('li')!;
    expect(limit).toHaveTextContent('integer | null');
    expect(limit.querySelector('[aria-label="required"]')).toBeNull();
  });

  it('resolves $ref within $defs and stops at recursion', async () => {
    const user = userEvent.setup();
    render(
      <MantineProvider env="test">
        <SchemaTree schema={schema} label="Input schema" expandDepth={0} />
      </MantineProvider>,
    );
    const root = screen.getByRole('button', { name: /root/ });
    expect(root).toHaveTextContent('node');
    expect(root).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByText('A tree node')).toBeInTheDocument();
    await user.click(root);
    expect(screen.getByText('label')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: /children/ }));
    expect(screen.getByText('(recursive)')).toBeInTheDocument();
  });
});
