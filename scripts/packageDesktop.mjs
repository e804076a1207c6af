// `npm run package -- --linux|--mac|--win [--arch=x64|arm64] [--dir] [--publish=always]`:
// build, stage what ships outside the asar, then electron-builder with electron-builder.yml plus
// what the environment provides. Needs the Electron binary, so it runs where GitHub is reachable.
//
// Environment (each optional; without it that step is skipped and the summary says so):
//   TOOLDECK_UPDATE_URL        auto-update feed on your own server (electron-builder "generic"; https only)
//   GITHUB_REPOSITORY          owner/repo: auto-update from that repository's GitHub releases (on
//                              GitHub Actions, where it is always set, only for a v* tag's build)
//   CSC_LINK, CSC_KEY_PASSWORD signing certificate (macOS Developer ID .p12, or Windows .pfx)
//   WIN_CSC_LINK, WIN_CSC_KEY_PASSWORD  a separate Windows certificate
//   APPLE_API_KEY, APPLE_API_KEY_ID, APPLE_API_ISSUER      notarization (App Store Connect key), or
//   APPLE_ID, APPLE_APP_SPECIFIC_PASSWORD, APPLE_TEAM_ID  notarization (Apple ID)
//   TOOLDECK_NODE_BINARY       the Node.js to ship (see scripts/desktopResources.mjs)
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot, stageDesktopResources } from './desktopResources.mjs';

/**
 * A GitHub Actions run sets GITHUB_REPOSITORY for every build, pull requests included; only the build
 * of a v* tag (what the Desktop workflow releases) may name the releases as its update feed. A
 * branch or pull-request build that did would embed app-update.yml and, once installed from its
 * artifact, replace itself with the latest release.
 */
function isUntaggedActionsBuild(env) {
  return env.GITHUB_ACTIONS === 'true' && !/^refs\/tags\/v/.test(env.GITHUB_REF ?? '');
}

/**
 * The generic update feed, which decides what the installed app runs next: only https, so no one
 * on the network path can serve a release (or its checksums) in its place. A bad value stops the
 * build with one sentence rather than shipping an app that updates from it.
 */
function updateFeedUrl(value) {
  let url;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`TOOLDECK_UPDATE_URL must be an https:// URL, and "${value}" is not a URL.`);
  }
  if (url.protocol !== 'https:') throw new Error(`TOOLDECK_UPDATE_URL must be an https:// URL (the update feed decides what the installed app runs next), not ${url.protocol}//${url.host}.`);
  return value;
}

/**
 * What the environment adds to electron-builder.yml (electron-builder merges it over the file):
 * the publish provider. Signing and notarization read their variables themselves.
 */
export function desktopBuildOverrides(env = process.env) {
  const config = {};
  if (env.TOOLDECK_UPDATE_URL) {
    config.publish = [{ provider: 'generic', url: updateFeedUrl(env.TOOLDECK_UPDATE_URL) }];
  } else if (env.GITHUB_REPOSITORY && /^[\w.-]+\/[\w.-]+$/.test(env.GITHUB_REPOSITORY) && !isUntaggedActionsBuild(env)) {
    const [owner, repo] = env.GITHUB_REPOSITORY.split('/');
    config.publish = [{ provider: 'github', owner, repo, releaseType: 'release' }];
  } else {
    config.publish = null;
  }
  return config;
}

/** One line per release step: what this build will do, and what it skips for want of which variables. */
export function releaseSummary(config, env = process.env) {
  const has = (...names) => names.every((name) => env[name]);
  const macSigning = has('CSC_LINK') || has('CSC_NAME');
  const notarize = has('APPLE_API_KEY', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER') || has('APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID') || has('APPLE_KEYCHAIN', 'APPLE_KEYCHAIN_PROFILE');
  const publish = config.publish?.[0];
  const noFeed = env.GITHUB_REPOSITORY && isUntaggedActionsBuild(env) ? `none (${env.GITHUB_REF ?? 'this build'} is not a v* tag)` : 'none (set TOOLDECK_UPDATE_URL or GITHUB_REPOSITORY)';
  return [
    `updates: ${publish ? (publish.provider === 'generic' ? `generic feed ${publish.url}` : `GitHub releases of ${publish.owner}/${publish.repo}`) : noFeed}`,
    `macOS signing: ${macSigning ? 'Developer ID from CSC_LINK/CSC_NAME' : 'none (ad-hoc signature reset after the fuses flip; set CSC_LINK)'}`,
    `macOS notarization: ${notarize && macSigning ? 'yes' : 'skipped (needs signing and APPLE_* credentials)'}`,
    `Windows signing: ${has('WIN_CSC_LINK') || has('CSC_LINK') ? 'certificate from WIN_CSC_LINK/CSC_LINK' : 'none (set WIN_CSC_LINK)'}`,
  ];
}

const PLATFORMS = { '--linux': 'linux', '--mac': 'darwin', '--win': 'win32' };

async function main(argv) {
  const platformFlag = argv.find((arg) => arg in PLATFORMS);
  if (!platformFlag) {
    console.error('usage: npm run package -- --linux|--mac|--win [--arch=x64|arm64] [--dir] [--publish=always|never]');
    process.exit(2);
  }
  let config;
  try {
    config = desktopBuildOverrides();
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
  const platform = PLATFORMS[platformFlag];
  const arch = argv.find((arg) => arg.startsWith('--arch='))?.slice('--arch='.length) ?? process.arch;
  const publish = argv.find((arg) => arg.startsWith('--publish='))?.slice('--publish='.length) ?? 'never';
  const build = spawnSync(process.execPath, [join(projectRoot, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: projectRoot, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  await stageDesktopResources({ platform, arch });
  for (const line of releaseSummary(config)) console.log(`• ${line}`);
  const builder = await import('electron-builder');
  const target = { linux: builder.Platform.LINUX, darwin: builder.Platform.MAC, win32: builder.Platform.WINDOWS }[platform];
  await builder.build({
    projectDir: projectRoot,
    targets: target.createTarget(argv.includes('--dir') ? 'dir' : null, builder.Arch[arch]),
    config,
    publish,
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
