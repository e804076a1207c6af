// `node scripts/mergeUpdateInfo.mjs <out.yml> <in.yml>…`: one electron-updater feed file from the
// ones separate builds wrote for the same channel. The Desktop workflow builds macOS on an Apple
// silicon and an Intel runner; each writes a latest-mac.yml that lists only its own zip and dmg, and
// uploading both to one release would leave whichever came last, so the other architecture would
// never see an update. electron-builder, building both architectures in one run, writes one file
// listing both, and electron-updater picks the arm64 or the x64 zip from that list (MacUpdater):
// this writes the same.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

/** The merged update info, as YAML: every input's files, once each; the rest from the first input. */
export function mergeUpdateInfo(texts) {
  const infos = texts.map((text) => parse(text, { version: '1.1' }));
  if (infos.length === 0) throw new Error('No update files to merge');
  const versions = [...new Set(infos.map((info) => info?.version))];
  if (versions.length !== 1 || !versions[0]) throw new Error(`The update files are not for one version: ${versions.join(', ')}`);
  const files = [];
  for (const info of infos) {
    for (const file of info.files ?? []) {
      const known = files.find((entry) => entry.url === file.url);
      if (!known) files.push(file);
      else if (known.sha512 !== file.sha512) throw new Error(`Two different files are named ${file.url}`);
    }
  }
  // `path` and `sha512` (what electron-updater read before `files` existed) stay the first input's,
  // as electron-builder keeps the first architecture's; the release date is the latest build's.
  const releaseDate = infos.map((info) => info.releaseDate).filter(Boolean).sort().at(-1);
  // Written for YAML 1.1, which electron-updater reads (js-yaml): a plain 2026-03-01T10:05:00Z would
  // come back as a Date there, so such strings are quoted, as electron-builder quotes them.
  return stringify({ ...infos[0], files, ...(releaseDate ? { releaseDate } : {}) }, { lineWidth: 0, version: '1.1' });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [out, ...inputs] = process.argv.slice(2);
  if (!out || inputs.length === 0) {
    console.error('usage: node scripts/mergeUpdateInfo.mjs <out.yml> <in.yml>…');
    process.exit(2);
  }
  writeFileSync(out, mergeUpdateInfo(inputs.map((input) => readFileSync(input, 'utf8'))));
  console.log(`${out}: ${inputs.length} update files merged`);
}
