import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseIcon, iconSource } from './icons';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

describe('iconSource', () => {
  it('shows data:image icons as is, fetches https ones with care, and nothing else', () => {
    expect(iconSource(PNG)).toBe('data');
    expect(iconSource('data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=')).toBe('data');
    expect(iconSource('https://cdn.example.com/icon.png')).toBe('https');
    for (const refused of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'http://example.com/icon.png',
      'file:///etc/passwd',
      'data:text/html;base64,PHNjcmlwdD4=',
      'data:image/png,<svg onload=alert(1)>',
      'data:image/svg+xml;utf8,<svg onload="alert(1)"/>',
      'https://user:pw@example.com/i.png',
      'ftp://example.com/i.png',
      '//example.com/i.png',
      'vbscript:msgbox',
    ])
      expect(iconSource(refused), refused).toBeUndefined();
  });

  it('accepts only data:image base64 URLs or credential-free https URLs, whatever the string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true }), fc.constantFrom('javascript:', 'data:', 'https://', 'data:image/png;base64,')).map((s) => s), (src) => {
        const kind = iconSource(src);
        if (kind === 'data') expect(src).toMatch(/^data:image\/[a-z+.-]+;base64,/);
        if (kind === 'https') expect(src.toLowerCase()).toMatch(/^https:/);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('chooseIcon', () => {
  it('prefers the theme, then the smallest size at or above what is shown, ignoring unsafe icons', () => {
    const icons = [
      { src: 'javascript:alert(1)', sizes: ['48x48'] },
      { src: 'data:image/png;base64,AAAA', sizes: ['16x16'] },
      { src: `${PNG.replace('=', 'A=')}`, sizes: ['64x64'], theme: 'dark' as const },
      { src: 'https://cdn.example.com/48.png', sizes: ['48x48'], theme: 'light' as const },
    ];
    expect(chooseIcon(icons, 'light', 40)?.src).toBe('https://cdn.example.com/48.png');
    expect(chooseIcon(icons, 'dark', 40)?.sizes).toEqual(['64x64']);
    expect(chooseIcon(icons.slice(0, 2), 'dark', 40)?.sizes).toEqual(['16x16']);
    expect(chooseIcon([{ src: 'javascript:x' }], 'light')).toBeUndefined();
    expect(chooseIcon(undefined, 'light')).toBeUndefined();
  });
});
