import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../common/contentSecurityPolicy';
import {
  APP_ORIGIN,
  decideLink,
  isTrustedSender,
  mainWindowOptions,
  permissionCheckHandler,
  permissionRequestHandler,
  shouldBlockNavigation,
} from './windowSecurity';

describe('Electron window hardening', () => {
  it('isolates the renderer: context isolation, sandbox, no node integration, no webview, no DevTools unless debugging', () => {
    const prefs = mainWindowOptions('/x/preload.cjs').webPreferences!;
    expect(mainWindowOptions('/x/preload.cjs', { devTools: true }).webPreferences!.devTools).toBe(true);
    expect(prefs).toMatchObject({
      devTools: false,
      preload: '/x/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
    });
  });

  it('blocks navigation away from the app origin', () => {
    expect(shouldBlockNavigation(`${APP_ORIGIN}/servers`)).toBe(false);
    expect(shouldBlockNavigation('https://example.com/')).toBe(true);
    expect(shouldBlockNavigation('file:///etc/passwd')).toBe(true);
    expect(shouldBlockNavigation('not a url')).toBe(true);
  });

  it('never opens new windows: https goes to the OS browser, local http after a confirmation, anything else is refused with a reason', () => {
    expect(decideLink('https://modelcontextprotocol.io/')).toEqual({ action: 'open', url: 'https://modelcontextprotocol.io/' });
    for (const local of ['http://localhost:3000/callback?code=1', 'http://127.0.0.1:8080/docs', 'http://[::1]:9000/']) expect(decideLink(local)).toEqual({ action: 'confirm', url: local });
    expect(decideLink('http://example.com/')).toMatchObject({ action: 'block', reason: expect.stringMatching(/only for pages on this machine/) });
    expect(decideLink('http://localhost.evil.example/')).toMatchObject({ action: 'block' });
    expect(decideLink('http://user:pw@localhost:3000/')).toMatchObject({ action: 'block', reason: expect.stringMatching(/credentials/) });
    expect(decideLink('file:///etc/passwd')).toMatchObject({ action: 'block', reason: 'file: links are not opened' });
    expect(decideLink('javascript:alert(1)')).toMatchObject({ action: 'block' });
    expect(decideLink('not a url')).toMatchObject({ action: 'block', reason: 'not a valid URL' });
  });

  it('grants clipboard writes to the app main frame only, and denies every other permission', () => {
    const appFrame = { isMainFrame: true, requestingUrl: `${APP_ORIGIN}/tools` };
    const granted: Array<[string, boolean]> = [];
    permissionRequestHandler(null, 'clipboard-sanitized-write', (g) => granted.push(['app frame', g]), appFrame);
    permissionRequestHandler(null, 'clipboard-sanitized-write', (g) => granted.push(['sub frame', g]), { ...appFrame, isMainFrame: false });
    permissionRequestHandler(null, 'clipboard-sanitized-write', (g) => granted.push(['foreign page', g]), { isMainFrame: true, requestingUrl: 'https://evil.example/' });
    permissionRequestHandler(null, 'clipboard-sanitized-write', (g) => granted.push(['no details', g]));
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) permissionRequestHandler(null, permission, (g) => granted.push([permission, g]), appFrame);
    expect(granted.filter(([, g]) => g).map(([who]) => who)).toEqual(['app frame']);

    expect(permissionCheckHandler(null, 'clipboard-sanitized-write', APP_ORIGIN, appFrame)).toBe(true);
    expect(permissionCheckHandler(null, 'clipboard-sanitized-write', APP_ORIGIN, { ...appFrame, isMainFrame: false })).toBe(false);
    expect(permissionCheckHandler(null, 'clipboard-sanitized-write', APP_ORIGIN, { ...appFrame, embeddingOrigin: 'https://evil.example' })).toBe(false);
    expect(permissionCheckHandler(null, 'clipboard-sanitized-write', 'https://evil.example', { isMainFrame: true, requestingUrl: 'https://evil.example/' })).toBe(false);
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) expect(permissionCheckHandler(null, permission, APP_ORIGIN, appFrame)).toBe(false);
  });

  it('gives an MCP App frame exactly the permissions its resource declared, and nothing without the app host', () => {
    const declared = new Set(['camera', 'clipboard-write']);
    const permits = (url: string, feature: string) => url.endsWith('/app/AAAAAAAAAAAAAAAAAAAAAAAA') && declared.has(feature);
    const appFrame = { isMainFrame: false, requestingUrl: 'http://127.0.0.1:41234/app/AAAAAAAAAAAAAAAAAAAAAAAA' };
    const ask = (permission: string, details: Parameters<typeof permissionRequestHandler>[3], hook: typeof permits | 'no app host' = permits) => {
      let granted: boolean | undefined;
      permissionRequestHandler(null, permission, (g) => (granted = g), details, hook === 'no app host' ? undefined : hook);
      return granted;
    };
    expect(ask('media', { ...appFrame, mediaTypes: ['video'] })).toBe(true);
    expect(ask('media', { ...appFrame, mediaTypes: ['video', 'audio'] })).toBe(false);
    expect(ask('media', appFrame)).toBe(false);
    expect(ask('clipboard-sanitized-write', appFrame)).toBe(true);
    expect(ask('geolocation', appFrame)).toBe(false);
    expect(ask('notifications', appFrame)).toBe(false);
    expect(ask('media', { ...appFrame, requestingUrl: 'http://127.0.0.1:41234/app/BBBBBBBBBBBBBBBBBBBBBBBB', mediaTypes: ['video'] })).toBe(false);
    expect(ask('media', { ...appFrame, requestingUrl: 'https://evil.example/app/AAAAAAAAAAAAAAAAAAAAAAAA', mediaTypes: ['video'] })).toBe(false);
    expect(ask('media', { ...appFrame, mediaTypes: ['video'] }, 'no app host')).toBe(false);
    // The main frame's own rules are unchanged by the hook.
    expect(ask('media', { isMainFrame: true, requestingUrl: `${APP_ORIGIN}/tools`, mediaTypes: ['video'] })).toBe(false);

    expect(permissionCheckHandler(null, 'clipboard-sanitized-write', 'http://127.0.0.1:41234', { ...appFrame, embeddingOrigin: APP_ORIGIN }, permits)).toBe(true);
    expect(permissionCheckHandler(null, 'clipboard-sanitized-write', 'http://127.0.0.1:41234', { ...appFrame, embeddingOrigin: 'https://evil.example' }, permits)).toBe(false);
  });

  it('accepts IPC only from the main frame on the app origin', () => {
    expect(isTrustedSender({ url: `${APP_ORIGIN}/index.html`, parent: null })).toBe(true);
    expect(isTrustedSender({ url: `${APP_ORIGIN}/index.html`, parent: {} })).toBe(false);
    expect(isTrustedSender({ url: 'https://evil.example/', parent: null })).toBe(false);
    expect(isTrustedSender({ url: 'app://other/index.html', parent: null })).toBe(false);
    expect(isTrustedSender(null)).toBe(false);
  });

  it('sends a CSP that forbids inline and remote scripts', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe/);
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });
});
