import { Tooltip } from '@mantine/core';
import type { CSSProperties } from 'react';
import { revealText, type HiddenKind } from '../../../../shared/revealText';

const LABEL: Record<HiddenKind, string> = {
  tag: 'hidden text',
  bidi: 'bidi',
  'zero-width': 'zero-width',
  invisible: 'invisible',
  control: 'control',
  'ill-formed': 'ill-formed',
  confusable: 'look-alike',
};

const MARK: CSSProperties = {
  fontFamily: 'var(--mantine-font-family-monospace)',
  fontSize: '0.85em',
  padding: '0 3px',
  margin: '0 1px',
  borderRadius: 3,
  background: 'var(--mantine-color-red-light)',
  color: 'var(--mantine-color-red-light-color)',
  outline: '1px solid var(--mantine-color-red-outline)',
  whiteSpace: 'nowrap',
};

/**
 * Text as a reader should see it: every invisible character (tag characters with the text they
 * spell, bidi controls, zero-width and control characters) becomes a visible red mark, and every
 * letter posing as another is marked with what it imitates. The same table the linter uses.
 */
export function RevealedText({ text }: { text: string }) {
  return (
    <>
      {revealText(text).map((part, index) =>
        part.hidden ? (
          <Tooltip key={index} label={`${part.hidden.codePoint} ${part.hidden.name}`} multiline maw={420}>
            <span style={MARK} data-hidden-kind={part.hidden.kind} aria-label={`${LABEL[part.hidden.kind]}: ${part.hidden.codePoint} ${part.hidden.name}`}>
              {part.hidden.kind === 'confusable' ? part.text : part.hidden.kind === 'tag' && part.hidden.decoded ? `⟦${part.hidden.decoded}⟧` : `⟦${part.hidden.codePoint}⟧`}
            </span>
          </Tooltip>
        ) : (
          <span key={index}>{part.text}</span>
        ),
      )}
    </>
  );
}
