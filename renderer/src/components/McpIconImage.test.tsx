import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBackend, renderWithBackend } from '../features/invoke/testing/FakeBackend';
import { McpIconImage } from './McpIconImage';

describe('McpIconImage', () => {
  it('shows a data:image icon directly, without asking the console', () => {
    const backend = new FakeBackend();
    renderWithBackend(<McpIconImage icons={[{ src: 'data:image/png;base64,AAAA' }]} label="weather icon" />, backend);
    expect(screen.getByRole('img', { name: 'weather icon' })).toHaveAttribute('src', 'data:image/png;base64,AAAA');
    expect(backend.callsTo('mcp.icon')).toEqual([]);
  });

  it('shows an https icon only as the data URL the console fetched', async () => {
    const backend = new FakeBackend().answer('mcp.icon', () => 'data:image/png;base64,BBBB');
    renderWithBackend(<McpIconImage icons={[{ src: 'https://cdn.example.com/i.png' }]} label="cdn icon" />, backend);
    await waitFor(() => expect(screen.getByRole('img', { name: 'cdn icon' })).toHaveAttribute('src', 'data:image/png;base64,BBBB'));
    expect(backend.callsTo('mcp.icon')).toEqual([{ src: 'https://cdn.example.com/i.png' }]);
  });

  it('shows nothing for a javascript: or http: icon', () => {
    const backend = new FakeBackend();
    renderWithBackend(<McpIconImage icons={[{ src: 'javascript:alert(1)' }, { src: 'http://example.com/i.png' }]} label="bad icon" />, backend);
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
    expect(backend.callsTo('mcp.icon')).toEqual([]);
  });
});
