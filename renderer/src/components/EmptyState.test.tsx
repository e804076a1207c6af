import { Button } from '@mantine/core';
import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { FakeBackend, renderWithBackend } from '../features/invoke/testing/FakeBackend';
import { EmptyState } from './EmptyState';

describe('EmptyState', () => {
  it('says what the section holds, what to do first, and offers the first action', () => {
    const onAdd = vi.fn();
    renderWithBackend(
      <EmptyState icon={<span data-testid="icon" />} title="No servers yet" description="Add an MCP server by command or URL." actions={<Button onClick={onAdd}>Add server</Button>} />,
      new FakeBackend(),
    );
    expect(screen.getByRole('heading', { name: 'No servers yet' })).toBeInTheDocument();
    expect(screen.getByText('Add an MCP server by command or URL.')).toBeInTheDocument();
    expect(screen.getByTestId('icon')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Add server' }));
    expect(onAdd).toHaveBeenCalledOnce();
  });
});
