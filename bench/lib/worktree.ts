import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPOSITORY_ROOT } from './services.js';

/**
 * Another commit of this repository, checked out beside it to be measured against the working
 * tree: a detached `git worktree` with its own `npm ci`, so it runs its own code on its own
 * dependencies. Kept under `node_modules/.cache/bench-compare/<commit>` and used again by the
 * next comparison with the same commit (an `npm ci` of the working tree removes them all).
 */
export interface Checkout {
  /** The full commit id `ref` named. */
  readonly commit: string;
  readonly root: string;
}

const git = (...args: string[]): string => execFileSync('git', args, { cwd: REPOSITORY_ROOT, encoding: 'utf8' }).trim();

/** The commit `ref` names, checked out and installed (reused when a previous comparison left it ready). */
export function checkOut(ref: string, log: (line: string) => void): Checkout {
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    throw new Error(`${ref} names no commit of this repository`);
  }
  const root = join(REPOSITORY_ROOT, 'node_modules', '.cache', 'bench-compare', commit);
  const ready = join(root, '.bench-compare-ready');
  if (existsSync(ready)) {
    log(`${ref} (${commit.slice(0, 12)}): using the checkout at ${root}`);
    return { commit, root };
  }
  // A folder left half made (an interrupted run), or registered but since deleted: start afresh.
  git('worktree', 'prune');
  if (existsSync(root)) git('worktree', 'remove', '--force', root);
  log(`${ref} (${commit.slice(0, 12)}): checking out into ${root}, then npm ci (a minute or two)`);
  git('worktree', 'add', '--detach', '--force', root, commit);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(ready, `${new Date().toISOString()}\n`);
  return { commit, root };
}

/** What `git describe` says of the working tree: its commit, and `-dirty` when it has changes. */
export function describeWorkingTree(): string {
  return git('describe', '--always', '--dirty', '--abbrev=12');
}
