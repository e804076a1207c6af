// After `npm install`: one line instead of npm's per-package engine notices (see .npmrc). npm runs
// on the machine's Node (often 20), but every Tooldeck script runs on the Node 22 that the `node`
// dev dependency installs, which is what the packages' engine ranges ask for.
const match = / node\/v(\d+)(\.\S+)/.exec(process.env.npm_config_user_agent ?? '');
if (match && Number(match[1]) < 22) {
  console.log(
    `npm ran on Node v${match[1]}${match[2]}; Tooldeck runs its scripts on its own Node 22 (node_modules/.bin/node), so the packages that require Node 22 are fine. (npm's engine notices are not printed; \`npm install --loglevel=warn\` shows them.)`,
  );
}
