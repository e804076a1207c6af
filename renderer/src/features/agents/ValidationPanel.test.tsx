import { MantineProvider } from '@mantine/core';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { A2aCardReport } from '../../../../shared/a2a';
import { summarizeChecks } from './checkRows';
import { ValidationPanel } from './ValidationPanel';

const rows: A2aCardReport['rows'] = [
  { id: 'card.name', status: 'pass', title: 'Name', detail: 'present' },
  { id: 'card.version', status: 'warn', title: 'Version', detail: 'not semver' },
  { id: 'card.interfaces', status: 'fail', title: 'Interfaces', detail: 'none reachable' },
  { id: 'card.skills', status: 'pass', title: 'Skills', detail: '5 skills' },
  { id: 'card.security', status: 'warn', title: 'Security', detail: 'no schemes' },
];

const report = {
  cardUrl: 'http://127.0.0.1:1/.well-known/agent-card.json',
  protocolVersion: '1.0',
  card: {} as A2aCardReport['card'],
  rows,
  raw: {},
} satisfies A2aCardReport;

describe('ValidationPanel', () => {
  it('lists failing checks first, then warnings, then passes, each with its result', () => {
    render(
      <MantineProvider env="test">
        <ValidationPanel report={report} />
      </MantineProvider>,
    );
    const body = within(screen.getByRole('table', { name: 'Card validation' }))
      .getAllByRole('row')
      .slice(1);
    expect(body.map((row) => within(row).getByRole('img').getAttribute('aria-label'))).toEqual(['Fail', 'Warning', 'Warning', 'Pass', 'Pass']);
    expect(body.map((row) => within(row).getAllByRole('cell')[1]!.textContent)).toEqual([
      'Interfacescard.interfaces',
      'Versioncard.version',
      'Securitycard.security',
      'Namecard.name',
      'Skillscard.skills',
    ]);
  });

  it('summarizes the report for the tab badge', () => {
    expect(summarizeChecks(rows).label).toBe('1 failure, 2 warnings');
    expect(summarizeChecks(rows.filter((r) => r.status !== 'fail')).label).toBe('2 warnings');
    expect(summarizeChecks(rows.filter((r) => r.status === 'pass')).label).toBe('all 2 passed');
  });
});
