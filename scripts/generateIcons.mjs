// `npm run icons`: the installers' icons from build/icon.svg — PNGs for Linux (build/icons/NxN.png),
// an ICNS for macOS and an ICO for Windows. Run after changing the SVG and commit the results.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import png2icons from 'png2icons';
import sharp from 'sharp';
import { projectRoot } from './desktopResources.mjs';

export const LINUX_ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

const buildDir = join(projectRoot, 'build');
const svg = readFileSync(join(buildDir, 'icon.svg'));
const render = (size) => sharp(svg, { density: Math.max(72, (72 * size) / 1024) }).resize(size, size).png({ compressionLevel: 9 }).toBuffer();

mkdirSync(join(buildDir, 'icons'), { recursive: true });
for (const size of LINUX_ICON_SIZES) writeFileSync(join(buildDir, 'icons', `${size}x${size}.png`), await render(size));
const large = await render(1024);
writeFileSync(join(buildDir, 'icon.png'), large);
writeFileSync(join(buildDir, 'icon.icns'), png2icons.createICNS(large, png2icons.BICUBIC2, 0));
writeFileSync(join(buildDir, 'icon.ico'), png2icons.createICO(large, png2icons.BICUBIC2, 0, true, true));
console.log(`Icons written to ${buildDir}`);
