// Just enough Dockerfile and .dockerignore reading for test/compose.test.ts: the images are
// checked by reading their instructions, without a Docker engine (scripts/compose-smoke.sh builds
// and runs them for real).

/** One instruction: its keyword upper-cased, its arguments, and the build stage it belongs to. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  /** Index of the `FROM` that opened the stage (0 for the first stage). */
  readonly stage: number;
}

/** A `FROM` line: the base image and the stage's name, if it has one. */
export interface Stage {
  readonly image: string;
  readonly name: string | undefined;
}

/** A `COPY` line, split into its `--flags`, its sources and its destination. */
export interface Copy {
  readonly stage: number;
  readonly from: string | undefined;
  readonly sources: readonly string[];
  readonly destination: string;
}

/** Splits a Dockerfile into instructions, as Docker does: comment lines dropped, `\` joined. */
export function parseDockerfile(text: string): Instruction[] {
  const lines = text.split('\n').filter((line) => !/^\s*#/.test(line));
  const logical = lines
    .join('\n')
    .replace(/\\[ \t]*\n/g, ' ')
    .split('\n');
  let stage = -1;
  const instructions: Instruction[] = [];
  for (const line of logical.map((l) => l.trim()).filter((l) => l !== '')) {
    const match = /^(\S+)\s*(.*)$/.exec(line);
    if (match === null) continue;
    const keyword = (match[1] ?? '').toUpperCase();
    if (keyword === 'FROM') stage += 1;
    instructions.push({ keyword, args: match[2] ?? '', stage: Math.max(stage, 0) });
  }
  return instructions;
}

/** The stages, in order. */
export function stagesOf(instructions: readonly Instruction[]): Stage[] {
  return instructions
    .filter((i) => i.keyword === 'FROM')
    .map((i) => {
      const [image = '', as, name] = i.args.split(/\s+/).filter((t) => !t.startsWith('--'));
      return { image, name: as?.toUpperCase() === 'AS' ? name : undefined };
    });
}

/**
 * The stages a target is built from, root first: a stage `FROM` another stage inherits its files
 * and its USER, ENV, WORKDIR, HEALTHCHECK and CMD. Throws when no stage has that name.
 */
export function chainOf(instructions: readonly Instruction[], target: string): number[] {
  const stages = stagesOf(instructions);
  const byName = (name: string) => stages.findIndex((stage) => stage.name?.toLowerCase() === name.toLowerCase());
  let index = byName(target);
  if (index < 0) throw new Error(`no stage named ${target}`);
  const chain: number[] = [];
  while (index >= 0 && !chain.includes(index)) {
    chain.unshift(index);
    index = byName(stages[index]?.image ?? '');
  }
  return chain;
}

/** The instructions a target is made of, in build order (see `chainOf`). */
export function instructionsOf(instructions: readonly Instruction[], target: string): Instruction[] {
  const chain = chainOf(instructions, target);
  return chain.flatMap((stage) => instructions.filter((i) => i.stage === stage));
}

/** Every `COPY` (shell form, which is all our Dockerfiles use). */
export function copiesOf(instructions: readonly Instruction[]): Copy[] {
  return instructions
    .filter((i) => i.keyword === 'COPY')
    .map((i) => {
      const tokens = i.args.split(/\s+/);
      const flags = tokens.filter((t) => t.startsWith('--'));
      const paths = tokens.filter((t) => !t.startsWith('--'));
      const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      return { stage: i.stage, from, sources: paths.slice(0, -1), destination: paths.at(-1) ?? '' };
    });
}

/**
 * Whether a `.dockerignore` keeps `path` (relative to the context) out of the build context.
 * Supports `*`, `?`, `**` and `!` exceptions (the last matching pattern wins); a pattern that
 * matches a parent directory excludes everything under it, as in Docker.
 */
export function isDockerignored(path: string, dockerignore: string): boolean {
  const patterns = dockerignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const parts = path.split('/');
  const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
  let ignored = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const regex = globToRegExp(raw.replace(/^!/, '').replace(/^\/+|\/+$/g, ''));
    if (candidates.some((candidate) => regex.test(candidate))) ignored = !negated;
  }
  return ignored;
}

/** Translates one Docker glob to an anchored regular expression. */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] ?? '';
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
