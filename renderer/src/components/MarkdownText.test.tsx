import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MarkdownText } from './MarkdownText';

function renderMarkdown(text: string) {
  return render(
    <MantineProvider env="test">
      <MarkdownText text={text} />
    </MantineProvider>,
  );
}

describe('MarkdownText', () => {
  it('renders headings, emphasis, code and only safe links', () => {
    renderMarkdown('# Title ##\n\nA **bold** `code` [site](https://example.com) [bad](javascript:alert(1))');
    expect(screen.getByRole('heading', { name: 'Title' })).toBeInTheDocument();
    expect(screen.getByText('bold').tagName).toBe('STRONG');
    expect(screen.getByText('code').tagName).toBe('CODE');
    expect(screen.getByRole('link', { name: 'site' })).toHaveAttribute('href', 'https://example.com/');
    expect(screen.queryByRole('link', { name: 'bad' })).not.toBeInTheDocument();
  });

  it('renders hostile text from a peer whole: 40,000 backticks, and a heading padded with 5,000 spaces', () => {
    // A hand-written hostile description: the inline expression was quadratic in the backticks, and
    // the heading expression tried every split of the spaces (minutes for 5,000).
    const ticks = '`'.repeat(40_000);
    const { container } = renderMarkdown(`tick ${ticks}\n\n# a${' '.repeat(5_000)}x #`);
    expect(container.textContent).toContain(`tick ${ticks}`);
    expect(screen.getByRole('heading').textContent).toBe(`a${' '.repeat(5_000)}x`);
  });
});
