// What `npm ci --omit=dev --workspace <name>` installs, read from package-lock.json without
// installing it: test/compose.test.ts holds the images' production dependencies to it.

/** One entry of a version 3 lockfile's `packages`, by its folder ("node_modules/x", "packages/core"). */
interface LockedPackage {
  readonly name?: string;
  /** A workspace's entry under node_modules: a link to its folder. */
  readonly link?: boolean;
  readonly resolved?: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface Lockfile {
  readonly packages: Record<string, LockedPackage>;
}

/**
 * The folder a package in `from` gets `name` from, as Node resolves it: the nearest
 * `node_modules/<name>` from `from` up to the root, or `undefined` when none is locked (an
 * optional dependency of another platform).
 */
function resolveFrom(lock: Lockfile, from: string, name: string): string | undefined {
  let folder = from;
  for (;;) {
    const candidate = `${folder === '' ? '' : `${folder}/`}node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (folder === '') return undefined;
    const parent = folder.lastIndexOf('/node_modules/');
    folder = parent < 0 ? '' : folder.slice(0, parent);
  }
}

/**
 * The names of every package that a production install of the workspace in `workspaceFolder`
 * ("packages/gateway") holds: its dependencies, theirs, and so on, with the optional ones the
 * lockfile has and the peers npm installs (not those marked optional); workspaces followed
 * through their links, the workspace itself left out. npm's own `"dev": true` marks what no
 * workspace needs in production, which is too coarse here: a dependency of one image is not one
 * of the other's.
 */
export function productionDependencies(lock: Lockfile, workspaceFolder: string): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const visit = (folder: string): void => {
    if (seen.has(folder)) return;
    seen.add(folder);
    const entry = lock.packages[folder];
    if (entry === undefined) throw new Error(`package-lock.json has no ${folder}`);
    if (entry.link === true && entry.resolved !== undefined) return visit(entry.resolved);
    const peers = Object.keys(entry.peerDependencies ?? {}).filter((name) => entry.peerDependenciesMeta?.[name]?.optional !== true);
    const wanted = [...peers, ...Object.keys({ ...entry.optionalDependencies, ...entry.dependencies })];
    for (const name of wanted) {
      const found = resolveFrom(lock, folder, name);
      if (found === undefined) continue;
      names.add(name);
      visit(found);
    }
  };
  visit(workspaceFolder);
  return names;
}
