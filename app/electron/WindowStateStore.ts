import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../main/platform/atomicWrite';
import { MIN_WINDOW_SIZE, type WindowPlacement } from './windowSecurity';

const WindowState = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  maximized: z.boolean().default(false),
});
export type WindowState = z.infer<typeof WindowState>;

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

const DEFAULT_SIZE = { width: 1400, height: 900 };
/** Enough of the title bar must be on some display to grab the window. */
const MIN_VISIBLE = { width: 160, height: 40 };

/**
 * The window's size and position across launches (`window-state.json` in the data folder). A saved
 * position that is on no display any more (a monitor unplugged) is dropped, so the window is
 * centred instead of opening out of reach; a corrupt file counts as no file.
 */
export class WindowStateStore {
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'window-state.json');
  }

  async load(): Promise<WindowState | undefined> {
    try {
      const parsed = WindowState.safeParse(JSON.parse(await readFile(this.file, 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  save(state: WindowState): Promise<void> {
    return writeFileAtomic(this.file, `${JSON.stringify(state)}\n`);
  }
}

/** Where the window opens, given what was saved and the displays' work areas now. */
export function placementFor(saved: WindowState | undefined, workAreas: Rectangle[]): { placement: WindowPlacement; maximized: boolean } {
  if (!saved) return { placement: { ...DEFAULT_SIZE }, maximized: false };
  const width = Math.max(MIN_WINDOW_SIZE.width, saved.width);
  const height = Math.max(MIN_WINDOW_SIZE.height, saved.height);
  const visible = workAreas.some((area) => overlap(area, { x: saved.x, y: saved.y, width, height: MIN_VISIBLE.height }, MIN_VISIBLE.width));
  if (!visible) {
    const largest = workAreas.reduce<Rectangle | undefined>((best, area) => (!best || area.width * area.height > best.width * best.height ? area : best), undefined);
    return { placement: { width: Math.min(width, largest?.width ?? width), height: Math.min(height, largest?.height ?? height) }, maximized: saved.maximized };
  }
  return { placement: { x: saved.x, y: saved.y, width, height }, maximized: saved.maximized };
}

function overlap(a: Rectangle, b: Rectangle, minWidth: number): boolean {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return width >= minWidth && height >= Math.min(b.height, MIN_VISIBLE.height);
}
