import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../common/contentSecurityPolicy';
import {
  APP_ORIGIN,
  decideWindowOpen,
  isTrustedSender,
  mainWindowOptions,
  permissionCheckHandler,
  permissionRequestHandler,
  shouldBlockNavigation,
} from './windowSecurity';

describe('Electron window hardening', () => {
  it('isolates the renderer: context isolation, sandbox, no node integration, no webview', () => {
    const prefs = mainWindowOptions('/x/preload.cjs').webPreferences!;
    expect(prefs).toMatchObject({
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

  it('never opens new windows; https links go to the OS browser, anything else is dropped', () => {
    expect(decideWindowOpen('https://modelcontextprotocol.io/')).toEqual({ action: 'deny', openExternally: 'https://modelcontextprotocol.io/' });
    expect(decideWindowOpen('http://example.com/')).toEqual({ action: 'deny' });
    expect(decideWindowOpen('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(decideWindowOpen('javascript:alert(1)')).toEqual({ action: 'deny' });
  });

  it('denies every permission request and check', () => {
    const granted: boolean[] = [];
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      permissionRequestHandler(null, permission, (g) => granted.push(g));
      expect(permissionCheckHandler(null, permission, APP_ORIGIN)).toBe(false);
    }
    expect(granted).toEqual([false, false, false, false, false]);
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
