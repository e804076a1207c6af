// Screenshot a page in Debian Chromium: node scripts/screenshot.mjs URL OUT.png [width height]; SCHEME=dark for dark mode.
import { chromium } from 'playwright-core';
const [url, out, w = '1440', h = '900'] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const page = await browser.newPage({ viewport: { width: Number(w), height: Number(h) }, colorScheme: process.env.SCHEME ?? 'light' });
await page.goto(url);
await page.waitForTimeout(Number(process.env.WAIT ?? 2500));
await page.screenshot({ path: out });
await browser.close();
