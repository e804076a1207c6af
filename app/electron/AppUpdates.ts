import type { Logger } from '../../main/platform/Logger';

/** The part of electron-updater's autoUpdater used here (injected: tests drive a fake). */
export interface UpdaterLike {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  on(event: 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'update-available' | 'update-not-available', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  checkForUpdates(): Promise<unknown>;
  quitAndInstall(): void;
}

const CHECK_EVERY_MS = 6 * 60 * 60 * 1000;

/**
 * Auto-update from the feed the build was published with (electron-builder writes it into
 * app-update.yml; a build without one never checks). Updates download in the background; when one
 * is ready the window offers "Restart and update" (else it installs on the next quit).
 */
export class AppUpdates {
  private timer?: NodeJS.Timeout;
  private ready?: string;

  constructor(
    private readonly updater: UpdaterLike,
    private readonly logger: Logger,
    private readonly onReady: (version: string) => void,
  ) {
    updater.autoDownload = true;
    updater.autoInstallOnAppQuit = true;
    updater.on('update-available', (info) => logger.info('update available, downloading', { version: info.version }));
    updater.on('update-downloaded', (info) => {
      this.ready = info.version;
      logger.info('update downloaded', { version: info.version });
      onReady(info.version);
    });
    updater.on('error', (error) => logger.warn('update check failed', { error: error.message }));
  }

  start() {
    void this.check();
    this.timer = setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  /** Looks for an update now; resolves with what was found (for the menu's "Check for Updates…"). */
  async check(): Promise<{ status: 'ready'; version: string } | { status: 'checked' } | { status: 'failed'; error: string }> {
    if (this.ready) return { status: 'ready', version: this.ready };
    try {
      await this.updater.checkForUpdates();
      return this.ready ? { status: 'ready', version: this.ready } : { status: 'checked' };
    } catch (error) {
      return { status: 'failed', error: (error as Error).message };
    }
  }

  get downloaded(): string | undefined {
    return this.ready;
  }

  install() {
    if (this.ready) this.updater.quitAndInstall();
  }

  stop() {
    clearInterval(this.timer);
  }
}
