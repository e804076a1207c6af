import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { JsonTree } from './JsonTree';

function renderTree(value: unknown, props: { expandDepth?: number; pageSize?: number } = {}) {
  return render(
    <MantineProvider env="test">
      <JsonTree value={value} label="Value" {...props} />
    </MantineProvider>,
  );
}

function itemsAtLevel(level: number) {
  return screen.getAllByRole('treeitem').filter((element) => element.getAttribute('aria-level') === String(level));
}

function item(name: RegExp | string) {
  return screen.getByRole('treeitem', { name });
}

describe('JsonTree', () => {
  it('shows keys and values and collapses and expands with the mouse', async () => {
    const user = userEvent.setup();
    renderTree({ user: { name: 'Ada', age: 36, admin: true, manager: null } });
    expect(item(/"name":\s*"Ada"/)).toBeInTheDocument();
    expect(item(/"age":\s*36/)).toBeInTheDocument();

    await user.click(item(/"user"/));
    expect(item(/"user"/)).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('treeitem', { name: /"name"/ })).not.toBeInTheDocument();
    expect(item(/"user"/)).toHaveTextContent('4 keys');
  });

  it('moves with the arrow keys and opens and closes with Right and Left', async () => {
    const user = userEvent.setup();
    renderTree({ a: { b: 1 }, c: [1, 2] }, { expandDepth: 1 });
    await user.tab();
    expect(screen.getAllByRole('treeitem')[0]).toHaveFocus();

    await user.keyboard('{ArrowDown}');
    expect(item(/"a"/)).toHaveFocus();
    expect(item(/"a"/)).toHaveAttribute('aria-expanded', 'false');
    await user.keyboard('{ArrowRight}');
    expect(item(/"a"/)).toHaveAttribute('aria-expanded', 'true');
    await user.keyboard('{ArrowRight}');
    expect(item(/"b":\s*1/)).toHaveFocus();
    await user.keyboard('{ArrowLeft}');
    expect(item(/"a"/)).toHaveFocus();
    await user.keyboard('{ArrowLeft}');
    expect(item(/"a"/)).toHaveAttribute('aria-expanded', 'false');
    await user.keyboard('{End}');
    expect(item(/"c"/)).toHaveFocus();
  });

  it('starts large arrays collapsed and lists them a page at a time', async () => {
    const user = userEvent.setup();
    renderTree({ rows: Array.from({ length: 250 }, (_, i) => i) }, { pageSize: 100 });
    const rows = item(/"rows"/);
    expect(rows).toHaveAttribute('aria-expanded', 'false');
    expect(rows).toHaveTextContent('250 items');

    await user.click(rows);
    expect(itemsAtLevel(3)).toHaveLength(101);
    await user.click(item(/Show 100 more \(100 of 250 shown\)/));
    await user.click(item(/Show 50 more \(200 of 250 shown\)/));
    expect(itemsAtLevel(3)).toHaveLength(250);
    expect(itemsAtLevel(3).at(-1)).toHaveAccessibleName(/249:\s*249/);
  });
});
