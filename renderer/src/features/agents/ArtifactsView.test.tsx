import { MantineProvider } from '@mantine/core';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { A2aArtifact } from '../../../../shared/a2a';
import { ArtifactsView } from './ArtifactsView';

describe('ArtifactsView', () => {
  it('renders each part by its kind: text, data as a JSON tree, files as download or external links', () => {
    const artifacts: A2aArtifact[] = [
      { artifactId: 'a1', name: 'summary', parts: [{ kind: 'text', text: '3 items, total 42.' }] },
      { artifactId: 'a2', name: 'figures', parts: [{ kind: 'data', data: { items: 3, total: 42 } }] },
      {
        artifactId: 'a3',
        name: 'files',
        parts: [
          { kind: 'file', bytesBase64: 'aGVsbG8=', filename: 'hello.txt', mediaType: 'text/plain' },
          { kind: 'file', url: 'https://example.test/report.pdf', filename: 'report.pdf', mediaType: 'application/pdf' },
        ],
      },
    ];
    render(
      <MantineProvider env="test">
        <ArtifactsView artifacts={artifacts} />
      </MantineProvider>,
    );
    const region = screen.getByRole('region', { name: 'Artifacts' });

    expect(within(region).getByText('3 items, total 42.')).toBeInTheDocument();

    const tree = within(region).getByRole('tree', { name: 'figures (data)' });
    expect(within(tree).getByText('"total"')).toBeInTheDocument();
    expect(within(tree).getByText('42')).toBeInTheDocument();

    const download = within(region).getByRole('link', { name: /Download hello\.txt/ });
    expect(download).toHaveAttribute('download', 'hello.txt');
    expect(download).toHaveAttribute('href', 'data:text/plain;base64,aGVsbG8=');
    expect(within(region).getByText('5 B')).toBeInTheDocument();

    const external = within(region).getByRole('link', { name: /report\.pdf/ });
    expect(external).toHaveAttribute('href', 'https://example.test/report.pdf');
    expect(external).not.toHaveAttribute('download');
  });
});
