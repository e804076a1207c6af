import { silentLogger } from '../../platform/Logger';
import { LaunchAllowList } from '../LaunchAllowList';
import { launchLines } from '../mcpServerConfig';
import { Workspace } from '../Workspace';

/**
 * For tests that start a folder's servers: the user confirms every stdio command line the folder
 * declares now (what the console's confirm action or the CLI's `--yes` records), in the allow-list
 * of a running console or of a data dir. Returns the lines.
 */
export async function confirmFolderLaunches(allowList: LaunchAllowList | string, dir: string): Promise<string[]> {
  const workspace = new Workspace({ dir, logger: silentLogger, watch: false });
  try {
    await workspace.load();
    const lines = launchLines(workspace.documents());
    // The running console's own list (its reconciler retries at once), or the data dir's file.
    await (typeof allowList === 'string' ? new LaunchAllowList(allowList) : allowList).confirm(dir, lines);
    return lines;
  } finally {
    workspace.close();
  }
}
